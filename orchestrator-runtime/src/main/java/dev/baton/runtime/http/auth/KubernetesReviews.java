package dev.baton.runtime.http.auth;

import dev.baton.api.client.TolerantSerialization;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * Asking the Kubernetes API a review (TokenReview, SubjectAccessReview): what goes wrong there becomes a
 * {@link ReviewUnavailable} (a 503), with a message that says what to do and never holds the token.
 */
public final class KubernetesReviews {

  /** How long a request waits for a review at most: then it is a 503, and the caller tries again. */
  static final int TIMEOUT_MILLIS = 5_000;

  private KubernetesReviews() {}

  /**
   * A client of the runtime's API server for reviews: the same address and credentials, no retries and a short
   * timeout. A review is asked while a request waits; the client's own retries (with backoff, for a minute and more)
   * would hold every request through an outage of the API server instead of answering 503 at once.
   */
  public static KubernetesClient clientFor(KubernetesClient runtimeClient) {
    return TolerantSerialization.clientBuilder().withConfig(new ConfigBuilder(runtimeClient.getConfiguration())
        .withRequestRetryBackoffLimit(0).withRequestTimeout(TIMEOUT_MILLIS).withConnectionTimeout(TIMEOUT_MILLIS)
        .build()).build();
  }

  /**
   * @param kind {@code tokenreviews.authentication.k8s.io} or {@code subjectaccessreviews.authorization.k8s.io}
   * @param secret a value that must not appear in a log line or a message (the token), or null
   */
  static <T> T ask(String kind, String secret, Logger log, Supplier<T> review) {
    try {
      return review.get();
    } catch (KubernetesClientException e) {
      int code = e.getCode();
      String detail = scrub(e.getMessage(), secret);
      if (code == 401 || code == 403) {
        log.error("The runtime may not create {} ({}): its ServiceAccount needs a ClusterRole with create on them"
            + " (the Helm chart grants it): {}", kind, code, detail);
        throw new ReviewUnavailable("the runtime may not ask the Kubernetes API who is calling (create " + kind
            + "): see the runtime's log");
      }
      log.warn("The Kubernetes API did not answer a review ({}): {}", kind,
          code > 0 ? "HTTP " + code + ": " + detail : detail);
      throw new ReviewUnavailable("the Kubernetes API could not be asked (" + kind
          + (code > 0 ? ", HTTP " + code : "") + "): try again shortly");
    } catch (RuntimeException e) {
      log.warn("The Kubernetes API did not answer a review ({}): {}", kind, e.getClass().getSimpleName());
      throw new ReviewUnavailable("the Kubernetes API could not be asked (" + kind + "): try again shortly");
    }
  }

  /** A message without the secret in it, should a server ever have echoed it. */
  static String scrub(String message, String secret) {
    if (message == null) {
      return "";
    }
    return secret == null || secret.isEmpty() ? message : message.replace(secret, "(token)");
  }
}
