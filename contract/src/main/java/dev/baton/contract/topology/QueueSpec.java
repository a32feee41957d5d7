package dev.baton.contract.topology;

import java.util.Map;
import java.util.TreeMap;

/**
 * A durable queue and its arguments. Arguments are immutable in RabbitMQ, so only values that never change for a
 * given queue name go here (TTL is part of a tier's name; dead-letter targets that may change are bindings).
 */
public record QueueSpec(String name, Role role, Map<String, Object> arguments) {

  public QueueSpec {
    arguments = Map.copyOf(new TreeMap<>(arguments));
  }

  public enum Role {
    /** A command or subscription queue that workers consume. */
    CONSUMER,
    /** A retry tier: messages wait out their TTL here, then dead-letter back to be consumed again. */
    RETRY_TIER,
    /** The parking lot of a command or subscription. */
    DEAD_LETTER,
    /** The queue of a Workflow's events, consumed by the runtime. */
    ORCHESTRATOR,
    /** Where the runtime parks events it cannot use. */
    ORCHESTRATOR_DEAD_LETTER
  }
}
