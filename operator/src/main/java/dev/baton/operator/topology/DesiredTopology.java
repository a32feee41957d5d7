package dev.baton.operator.topology;

import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.contract.topology.OrchestratorTopology;
import dev.baton.contract.topology.QueueSpec;
import dev.baton.contract.topology.ServiceTopology;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What one resource wants on the broker: the objects it owns, and the exchanges of others its bindings start from
 * (a subscription's or a Workflow's source event exchanges). Those are declared when missing, so a binding never
 * waits for another resource to be reconciled first, but never removed: they belong to their service.
 */
public record DesiredTopology(
    List<ExchangeSpec> exchanges, List<QueueSpec> queues, List<BindingSpec> bindings, List<String> foreignExchanges) {

  public DesiredTopology {
    exchanges = List.copyOf(exchanges);
    queues = List.copyOf(queues);
    bindings = List.copyOf(bindings);
    foreignExchanges = List.copyOf(foreignExchanges);
  }

  public static DesiredTopology of(ServiceTopology t) {
    return new DesiredTopology(t.exchanges(), t.queues(), t.bindings(), foreign(t.bindings(), Set.copyOf(t.exchangeNames())));
  }

  public static DesiredTopology of(OrchestratorTopology t) {
    return new DesiredTopology(List.of(), t.queues(), t.bindings(), foreign(t.bindings(), Set.of()));
  }

  private static List<String> foreign(List<BindingSpec> bindings, Set<String> owned) {
    Set<String> names = new LinkedHashSet<>();
    bindings.stream().map(BindingSpec::exchange).filter(e -> !owned.contains(e)).forEach(names::add);
    return List.copyOf(names);
  }
}
