package dev.baton.cli;

import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.validation.Validated;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.operator.dependent.Credentials;
import dev.baton.operator.dependent.WorkerResources;
import dev.baton.operator.model.WorkerServiceTranslator;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The environment a worker pod of a WorkerService would get, for running its worker in-process in {@code baton dev}
 * (there is no kubelet to start pods). With a Deployment, its container's env as the kubelet would resolve it
 * (values, and Secret references read from the Secrets). Without one, the same variables the operator would put
 * there, computed with the operator's own translation ({@link WorkerServiceTranslator}, {@link WorkerEnvironment}),
 * plus the credentials from the Secret the operator wrote ({@code <name>-broker-credentials}).
 */
final class WorkerEnvironmentSource {

  private WorkerEnvironmentSource() {}

  /**
   * @throws IllegalStateException saying what is missing (the Secret not written yet, an invalid spec...)
   */
  static Map<String, String> resolve(KubernetesClient client, WorkerService ws) {
    String namespace = ws.getMetadata().getNamespace();
    String secretName = ws.getStatus() != null && ws.getStatus().getCredentialsSecret() != null
        ? ws.getStatus().getCredentialsSecret() : WorkerResources.secretName(ws);
    Map<String, String> credentials = secretData(client, namespace, secretName);
    Deployment deployment = ws.getSpec() != null && ws.getSpec().getDeployment() != null
        ? client.apps().deployments().inNamespace(namespace).withName(WorkerResources.deploymentName(ws)).get()
        : null;
    if (deployment != null) {
      return fromDeployment(client, namespace, deployment, secretName, credentials);
    }
    Validated<ServiceModel> model = WorkerServiceTranslator.fromCrd(ws, name ->
        Optional.ofNullable(client.resources(RetryPolicy.class).inNamespace(namespace).withName(name).get()));
    if (!model.isValid()) {
      throw new IllegalStateException("its spec is not valid: " + model.message());
    }
    Map<String, String> env = new LinkedHashMap<>(
        new WorkerEnvironment(model.value(), WorkerServiceTranslator.prefetch(ws)).variables());
    env.put(WorkerEnvironment.RABBITMQ_URI, require(credentials, Credentials.URI, secretName));
    env.put(WorkerEnvironment.RABBITMQ_USERNAME, require(credentials, Credentials.USERNAME, secretName));
    env.put(WorkerEnvironment.RABBITMQ_PASSWORD, require(credentials, Credentials.PASSWORD, secretName));
    return env;
  }

  private static Map<String, String> fromDeployment(KubernetesClient client, String namespace, Deployment d,
      String secretName, Map<String, String> credentials) {
    Container container = d.getSpec().getTemplate().getSpec().getContainers().stream()
        .filter(c -> WorkerResources.CONTAINER.equals(c.getName())).findFirst()
        .orElseThrow(() -> new IllegalStateException("Deployment " + d.getMetadata().getName()
            + " has no container '" + WorkerResources.CONTAINER + "'"));
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar v : container.getEnv() == null ? java.util.List.<EnvVar>of() : container.getEnv()) {
      if (v.getValue() != null) {
        env.put(v.getName(), v.getValue());
      } else if (v.getValueFrom() != null && v.getValueFrom().getSecretKeyRef() != null) {
        SecretKeySelector ref = v.getValueFrom().getSecretKeyRef();
        Map<String, String> data = ref.getName().equals(secretName) ? credentials
            : secretData(client, namespace, ref.getName());
        env.put(v.getName(), require(data, ref.getKey(), ref.getName()));
      }
    }
    return env;
  }

  private static Map<String, String> secretData(KubernetesClient client, String namespace, String name) {
    Secret secret = client.secrets().inNamespace(namespace).withName(name).get();
    if (secret == null) {
      throw new IllegalStateException("its Secret " + namespace + "/" + name + " does not exist (yet)");
    }
    Map<String, String> data = new LinkedHashMap<>();
    if (secret.getData() != null) {
      secret.getData().forEach((k, v) -> data.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
    }
    if (secret.getStringData() != null) {
      data.putAll(secret.getStringData());
    }
    return data;
  }

  private static String require(Map<String, String> data, String key, String secret) {
    String v = data.get(key);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException("its Secret " + secret + " has no '" + key + "'");
    }
    return v;
  }
}
