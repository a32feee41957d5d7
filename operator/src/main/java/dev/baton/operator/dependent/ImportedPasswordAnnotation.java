package dev.baton.operator.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Optional;

/** The annotation naming a Secret whose {@code password} a WorkerService imports instead of one drawn by Baton. */
public final class ImportedPasswordAnnotation {

  public static final String NAME = "baton.dev/password-secret";

  private ImportedPasswordAnnotation() {}

  public static Optional<String> of(HasMetadata resource) {
    return Optional.ofNullable(resource.getMetadata().getAnnotations()).map(a -> a.get(NAME)).filter(n -> !n.isBlank());
  }
}
