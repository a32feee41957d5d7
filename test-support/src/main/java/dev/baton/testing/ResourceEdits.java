package dev.baton.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.UnaryOperator;

/** Edits of resources the operator also writes to, made as a person makes them. */
public final class ResourceEdits {

  private static final int ATTEMPTS = 5;

  private ResourceEdits() {}

  /**
   * Reads the resource, changes it and writes it back; when the operator wrote its status between the read and the
   * write (409 Conflict: the edit carries the resourceVersion it read), reads again and redoes the change, as
   * {@code kubectl edit} asks a person to.
   */
  public static <T extends HasMetadata> T edit(KubernetesClient client, Class<T> kind, String namespace, String name,
      UnaryOperator<T> change) {
    for (int attempt = 1; ; attempt++) {
      try {
        return client.resources(kind).inNamespace(namespace).withName(name).edit(change);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
