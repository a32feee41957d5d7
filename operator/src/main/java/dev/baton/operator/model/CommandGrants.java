package dev.baton.operator.model;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Which services the Workflows of one namespace may command ({@link Tenancy}). A Workflow sends commands to a service
 * and receives its results on its own queue, bound to the service's event exchange: a Workflow using a service it may
 * not is refused as a whole, and a binding that a provider's grant no longer covers goes whatever the spec says
 * ({@link #refusesEventsOf}), running revisions' routes included. A service no WorkerService provides is not decided
 * here: the Workflow is {@code MissingService} ({@link WorkflowTranslator}). Pure.
 */
public final class CommandGrants {

  private final String namespace;
  private final ServiceDirectory directory;
  private final Tenancy tenancy;

  private CommandGrants(String namespace, ServiceDirectory directory, Tenancy tenancy) {
    this.namespace = namespace;
    this.directory = directory;
    this.tenancy = tenancy;
  }

  /** @param namespace the Workflows' */
  public static CommandGrants of(String namespace, ServiceDirectory directory, Tenancy tenancy) {
    return new CommandGrants(namespace, directory, tenancy);
  }

  /** Why the namespace may not command {@code service}; empty when it may, or when nobody provides it. */
  public Optional<String> refusal(String service) {
    return directory.holder(service).flatMap(provider -> tenancy.commandRefusal(namespace, service, provider));
  }

  /** For the Ready condition: why each of {@code services} that is refused is; empty when all are granted. */
  public Optional<String> refusal(Collection<String> services) {
    String why = new LinkedHashSet<>(services).stream().map(this::refusal).flatMap(Optional::stream)
        .collect(Collectors.joining("; "));
    return why.isEmpty() ? Optional.empty() : Optional.of(why);
  }

  /**
   * Whether a binding from {@code exchange} brings results the namespace may not receive: it is the event exchange of
   * a service whose providing WorkerService does not grant the namespace.
   */
  public boolean refusesEventsOf(String exchange) {
    return EventExchanges.serviceOf(exchange).flatMap(this::refusal).isPresent();
  }
}
