package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.dependent.Credentials;
import dev.baton.operator.dependent.ImportedPasswordAnnotation;
import dev.baton.api.validation.Problem;
import dev.baton.api.validation.Validated;
import java.util.List;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/**
 * The broker password a WorkerService imports: the key {@code password} of the Secret its annotation
 * {@value ImportedPasswordAnnotation#NAME} names, in its namespace (a password kept elsewhere, e.g. synced from a
 * vault). A missing Secret or key is a spec to fix, not an error to retry in a loop. One GET per pass, only for the
 * WorkerServices that import.
 */
final class ImportedPassword {

  private ImportedPassword() {}

  static Validated<Optional<String>> of(WorkerService ws, KubernetesClient client) {
    Optional<String> name = ImportedPasswordAnnotation.of(ws);
    if (name.isEmpty()) {
      return Validated.valid(Optional.empty());
    }
    Secret secret = client.secrets().inNamespace(ws.getMetadata().getNamespace()).withName(name.get()).get();
    Optional<String> password = secret == null ? Optional.empty() : Credentials.password(secret);
    if (password.isEmpty()) {
      return Validated.invalid(List.of(Problem.invalid("metadata.annotations['" + ImportedPasswordAnnotation.NAME + "']: Secret '" + name.get()
          + "' in namespace '" + ws.getMetadata().getNamespace() + "' " + (secret == null ? "does not exist"
          : "has no key 'password'") + ": create it with the broker password to import, or remove the annotation")));
    }
    return Validated.valid(password);
  }
}
