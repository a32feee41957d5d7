package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.api.crd.ListSet;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/**
 * What a service's owners let other namespaces do with it (docs/design.md#tenancy). A namespace owns the services its
 * WorkerServices provide; without a grant here only that namespace's Workflows command the service and only its
 * WorkerServices subscribe to its events.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("Which other namespaces may use this service. Its own namespace always may; others only as listed "
    + "here ('*' for every namespace).")
public class AccessSpec {

  /** Grants every namespace. */
  public static final String EVERY_NAMESPACE = "*";

  @JsonPropertyDescription("Namespaces whose Workflows may send commands to this service (and receive its results), "
      + "besides its own; '*' for every namespace.")
  @Size(max = Bounds.GRANTS)
  @ListSet
  private List<@Pattern(Bounds.NAMESPACE_OR_EVERY_PATTERN) @Size(max = Bounds.NAME) String> commandsFrom =
      new ArrayList<>();

  @JsonPropertyDescription("Namespaces whose WorkerServices may subscribe to this service's events, besides its own; "
      + "'*' for every namespace.")
  @Size(max = Bounds.GRANTS)
  @ListSet
  private List<@Pattern(Bounds.NAMESPACE_OR_EVERY_PATTERN) @Size(max = Bounds.NAME) String> eventsTo =
      new ArrayList<>();

  public AccessSpec() {}

  public AccessSpec(List<String> commandsFrom, List<String> eventsTo) {
    setCommandsFrom(commandsFrom);
    setEventsTo(eventsTo);
  }

  public List<String> getCommandsFrom() {
    return commandsFrom;
  }

  public void setCommandsFrom(List<String> commandsFrom) {
    this.commandsFrom = commandsFrom == null ? new ArrayList<>() : new ArrayList<>(commandsFrom);
  }

  public List<String> getEventsTo() {
    return eventsTo;
  }

  public void setEventsTo(List<String> eventsTo) {
    this.eventsTo = eventsTo == null ? new ArrayList<>() : new ArrayList<>(eventsTo);
  }
}
