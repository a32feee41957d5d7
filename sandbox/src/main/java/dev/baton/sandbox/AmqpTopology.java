package dev.baton.sandbox;

import com.rabbitmq.client.Channel;
import dev.baton.contract.Names;
import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.contract.topology.OrchestratorTopology;
import dev.baton.contract.topology.QueueSpec;
import dev.baton.contract.topology.ServiceTopology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Declares a planned topology over AMQP, for tests of the SDK and the runtime that run without the operator. The
 * plan comes from {@link dev.baton.contract.topology.TopologyPlanner}, the same one the operator declares, so
 * names and arguments cannot drift.
 */
public final class AmqpTopology {

  private AmqpTopology() {}

  public static void declare(Channel channel, ServiceTopology topology) {
    try {
      for (ExchangeSpec e : topology.exchanges()) {
        channel.exchangeDeclare(e.name(), e.type().brokerName(), true);
      }
      for (QueueSpec q : topology.queues()) {
        channel.queueDeclare(q.name(), true, false, false, arguments(q));
      }
      for (BindingSpec b : topology.bindings()) {
        // A subscription's source exchange belongs to another service: declare it so the binding holds.
        channel.exchangeDeclare(b.exchange(), b.exchange().endsWith(".direct.ex") ? "direct" : "topic", true);
        channel.queueBind(b.queue(), b.exchange(), b.routingKey());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The Workflow's queues and bindings, and the vhost's instance outcome exchange, which the operator declares once
   * when it starts (docs/design.md#broker-names): a test without the operator gets it with its first Workflow.
   */
  public static void declare(Channel channel, OrchestratorTopology topology) {
    try {
      channel.exchangeDeclare(Names.instanceOutcomeExchange(), "topic", true);
      for (QueueSpec q : topology.queues()) {
        channel.queueDeclare(q.name(), true, false, false, arguments(q));
      }
      for (BindingSpec b : topology.bindings()) {
        channel.exchangeDeclare(b.exchange(), "topic", true);
        channel.queueBind(b.queue(), b.exchange(), b.routingKey());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, Object> arguments(QueueSpec q) {
    return new HashMap<>(q.arguments());
  }
}
