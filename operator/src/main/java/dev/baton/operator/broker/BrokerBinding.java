package dev.baton.operator.broker;

import dev.baton.contract.topology.BindingSpec;

/**
 * A binding from an exchange to a queue as the broker reports it. The properties key identifies it for deletion
 * (it differs from the routing key when the binding has arguments, which Baton never sets but others might).
 */
public record BrokerBinding(String exchange, String queue, String routingKey, String propertiesKey) {

  public BindingSpec spec() {
    return new BindingSpec(exchange, queue, routingKey);
  }
}
