package dev.baton.contract.topology;

import java.util.List;

/** Every broker object of one worker service (docs/design.md#broker-names) and the permissions of its user (docs/design.md#security). */
public record ServiceTopology(
    String service,
    String commandExchange,
    String eventExchange,
    String retryExchange,
    List<ExchangeSpec> exchanges,
    List<QueueSpec> queues,
    List<BindingSpec> bindings,
    List<ConsumerTopology> consumers,
    PermissionSpec workerPermissions) {

  public ServiceTopology {
    exchanges = List.copyOf(exchanges);
    queues = List.copyOf(queues);
    bindings = List.copyOf(bindings);
    consumers = List.copyOf(consumers);
  }

  public List<String> queueNames() {
    return queues.stream().map(QueueSpec::name).toList();
  }

  public List<String> exchangeNames() {
    return exchanges.stream().map(ExchangeSpec::name).toList();
  }
}
