package dev.baton.operator.model;

import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.WorkerService;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The services of the vhost as Workflows see them: each service name resolves to the WorkerService that holds it
 * (a newer one in conflict provides nothing) and the commands that one accepts.
 */
public final class ServiceDirectory {

  private final NameClaims<WorkerService> claims;

  private ServiceDirectory(NameClaims<WorkerService> claims) {
    this.claims = claims;
  }

  public static ServiceDirectory of(Collection<WorkerService> workerServices) {
    return of(workerServices, Tenancy.CLOSED);
  }

  /** Only names claimed as the tenancy rules allow are provided. */
  public static ServiceDirectory of(Collection<WorkerService> workerServices, Tenancy tenancy) {
    return of(WorkerServiceTranslator.claims(workerServices, tenancy));
  }

  /** The services as {@code claims} says who holds them. */
  public static ServiceDirectory of(NameClaims<WorkerService> claims) {
    return new ServiceDirectory(claims);
  }

  public Optional<Provider> lookup(String service) {
    return holder(service).map(ws -> new Provider(service, NameClaims.describe(ws),
        ws.getSpec() == null ? List.of() : ws.getSpec().getCommands().stream().map(CommandSpec::getName).toList()));
  }

  /** The WorkerService that provides {@code service}, whose spec.access says who else may use it. */
  public Optional<WorkerService> holder(String service) {
    return claims.holder(service);
  }

  /**
   * @param resource {@code namespace/name} of the WorkerService
   */
  public record Provider(String service, String resource, List<String> commands) {

    public boolean accepts(String command) {
      return commands.contains(command);
    }
  }
}
