package dev.baton.operator.runtime;

import dev.baton.operator.dependent.Credentials;
import dev.baton.operator.dependent.WorkerResources;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Secret of the runtime's static API tokens (token mode) when the chart names none of the user's
 * ({@code BATON_RUNTIME_API_SECRET}): the operator creates it at start if it is missing, with a random token under
 * {@code tokenKey} (and {@code readTokenKey}), adds a key that is missing, and never changes a value that is there.
 *
 * <p>Why the operator and not the chart: a chart that makes a random token must read it back at every render to keep
 * it ({@code lookup}), which {@code helm template} cannot, so Argo CD saw a new token at every refresh (always
 * OutOfSync, and a sync replaced the token). A pre-install hook Job would run a pod at every Argo CD sync and nothing
 * at all in a {@code helm template | kubectl apply} pipeline; the operator already creates the runtime's broker Secret
 * the same way ({@link RuntimeBrokerUser}), and it is the one client of this token besides people. The runtime waits
 * for the Secret it references (the kubelet retries) the few seconds the operator takes to start. The operator then
 * sends the full token it read or made here; an existing Secret (a chart-made one of an earlier version, kept by
 * {@code helm.sh/resource-policy: keep}) keeps its tokens, so upgrading changes none.
 *
 * @param namespace the Secret's namespace (the release's)
 * @param name its name
 * @param tokenKey the key of the full token
 * @param readTokenKey the key of the read-only token, or null for none
 */
public record RuntimeApiTokens(String namespace, String name, String tokenKey, String readTokenKey) {

  private static final Logger LOG = LoggerFactory.getLogger(RuntimeApiTokens.class);

  public RuntimeApiTokens {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(tokenKey, "tokenKey");
    if (tokenKey.equals(readTokenKey)) {
      throw new IllegalArgumentException("the read-only token's key must differ from the full token's, both are "
          + tokenKey);
    }
  }

  /**
   * Reads {@code namespace/name} (as {@code BATON_RUNTIME_API_SECRET} gives it) with the keys of its tokens.
   *
   * @throws IllegalArgumentException when it is not {@code namespace/name}
   */
  public static RuntimeApiTokens parse(String secret, String tokenKey, String readTokenKey) {
    int slash = secret.indexOf('/');
    if (slash <= 0 || slash == secret.length() - 1 || secret.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException("must be namespace/name, e.g. baton-system/baton-runtime-api, not '"
          + secret + "'");
    }
    return new RuntimeApiTokens(secret.substring(0, slash), secret.substring(slash + 1), tokenKey,
        readTokenKey == null || readTokenKey.isBlank() ? null : readTokenKey);
  }

  /**
   * Makes the Secret hold both tokens, creating what is missing and keeping what is there.
   *
   * @return the full token, which the operator sends to the runtime
   */
  public String ensure(KubernetesClient client) {
    Secret existing = client.secrets().inNamespace(namespace).withName(name).get();
    if (existing == null) {
      try {
        Secret created = client.resource(new SecretBuilder()
            .withNewMetadata().withName(name).withNamespace(namespace).withLabels(labels()).endMetadata()
            .withType("Opaque")
            .withData(withTokens(Map.of()))
            .build()).create();
        LOG.info("Created the runtime's API token Secret {}/{}", namespace, name);
        return decoded(created);
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
          throw e;
        }
        // Another replica made it first: its tokens are the ones.
        return ensure(client);
      }
    }
    Map<String, String> data = existing.getData() == null ? Map.of() : existing.getData();
    Map<String, String> completed = withTokens(data);
    if (!completed.equals(data)) {
      existing.setData(completed);
      client.resource(existing).update(); // a conflict (someone else's change) fails the start: the pod retries
      LOG.info("Added the missing token(s) to the runtime's API token Secret {}/{}", namespace, name);
    }
    return decoded(existing);
  }

  /** The data with a new random token under each of the keys it lacks; values present are kept. */
  private Map<String, String> withTokens(Map<String, String> data) {
    Map<String, String> completed = new LinkedHashMap<>(data);
    completed.computeIfAbsent(tokenKey, k -> newToken());
    if (readTokenKey != null) {
      completed.computeIfAbsent(readTokenKey, k -> newToken());
    }
    return completed;
  }

  private String decoded(Secret secret) {
    return new String(Base64.getDecoder().decode(secret.getData().get(tokenKey)), StandardCharsets.UTF_8).strip();
  }

  /** Two of the credentials' passwords: 64 letters and digits, as hard to guess as the chart's 40 were and more. */
  private static String newToken() {
    return Base64.getEncoder().encodeToString((Credentials.newPassword() + Credentials.newPassword())
        .getBytes(StandardCharsets.US_ASCII));
  }

  private static Map<String, String> labels() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(WorkerResources.NAME_LABEL, "baton-runtime");
    labels.put("app.kubernetes.io/component", "api-tokens");
    labels.put("app.kubernetes.io/created-by", WorkerResources.MANAGED_BY);
    return labels;
  }

  @Override
  public String toString() {
    return namespace + "/" + name + " (keys " + tokenKey + (readTokenKey == null ? "" : ", " + readTokenKey) + ")";
  }
}
