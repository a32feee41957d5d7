package dev.baton.runtime.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.baton.contract.Names;
import dev.baton.runtime.core.InboundEvent;
import dev.baton.runtime.core.InstanceStatus;
import dev.baton.runtime.core.Receipt;
import dev.baton.runtime.engine.OutboxSignal;
import dev.baton.runtime.engine.UnitOfWork;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.QueuedCommand;
import dev.baton.runtime.store.TestDatabases;
import dev.baton.sandbox.RabbitVhost;
import dev.baton.sandbox.Sandbox;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A lane whose batch throws an {@link Error} used to die silently: its consumer kept filling an
 * inbox no thread drained, and {@code /healthz} stayed UP. Now it logs, leaves the events unacknowledged for the
 * broker to redeliver, reports itself not running while it waits, and starts its loop again. The engine is a
 * stand-in here (the test hook); broker and database are real.
 */
class LaneSupervisionIT {

  static final String WORKFLOW = "lanes";
  static Sandbox infrastructure;
  static RabbitVhost vhost;
  static Database database;
  static Connection consumer;
  static Connection publisher;

  @BeforeAll
  static void infrastructure() throws Exception {
    infrastructure = Sandbox.builder("lanes").vhost().database().start();
    vhost = infrastructure.vhost();
    database = TestDatabases.open(infrastructure, 4);
    consumer = infrastructure.own(vhost.newConnection("lanes-consumer"));
    publisher = infrastructure.own(vhost.newConnection("lanes-publisher"));
    try (Channel ch = consumer.createChannel()) {
      ch.queueDeclare(Names.orchestratorQueue(WORKFLOW), true, false, false, Map.of());
      ch.queueDeclare(Names.orchestratorDeadLetterQueue(WORKFLOW), true, false, false, Map.of());
      ch.exchangeDeclare(Names.eventExchange("lanes-a"), "topic", true);
      ch.queueBind(Names.orchestratorQueue(WORKFLOW), Names.eventExchange("lanes-a"), "order.#");
    }
  }

  @AfterAll
  static void close() {
    infrastructure.close(); // the connections, the pool, the database, the vhost
  }

  @Test
  void aLaneThatHitsAnErrorReportsItselfDownStartsAgainAndNothingIsLost() throws Exception {
    List<String> applied = new CopyOnWriteArrayList<>();
    AtomicBoolean failNext = new AtomicBoolean(true);
    EventBatchApplier engine = (c, events) -> {
      if (failNext.getAndSet(false)) {
        throw new StackOverflowError("test hook: the engine blew its stack");
      }
      return applyAll(events, applied);
    };
    ConsumerRegistry registry = lanes(engine);
    try {
      registry.reconcile();
      assertThat(registry.lanesNotRunning()).isEmpty();

      publishEvent("first");
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .until(() -> !registry.lanesNotRunning().isEmpty());
      assertThat(registry.lanesNotRunning()).singleElement().asString()
          .startsWith("lane 0: restarting after java.lang.StackOverflowError");

      // The lane starts again, is subscribed again (by the registry's periodic reconcile, as in the runtime), and the
      // event it left unacknowledged comes back.
      await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
        registry.reconcile();
        return applied.contains("first");
      });
      assertThat(registry.lanesNotRunning()).isEmpty();
      publishEvent("second");
      await().atMost(Duration.ofSeconds(10)).until(() -> applied.contains("second"));
      try (Channel ch = consumer.createChannel()) {
        await().atMost(Duration.ofSeconds(10)).until(() -> ch.messageCount(Names.orchestratorQueue(WORKFLOW)) == 0);
      }
      assertThat(applied).containsExactly("first", "second");
    } finally {
      registry.stop(Duration.ofSeconds(2));
    }
  }

  /**
   * Fails on the code before: an event that raises an Error every time was redelivered for ever, the lane restarting
   * each time, and never parked.
   */
  @Test
  void anEventThatRaisesAnErrorAgainWhenItComesBackIsParkedAndTheOthersFlow() throws Exception {
    List<String> applied = new CopyOnWriteArrayList<>();
    EventBatchApplier engine = (c, events) -> {
      if (events.stream().anyMatch(e -> e.messageId().equals("poison"))) {
        throw new AssertionError("test hook: a bug this event always hits");
      }
      return applyAll(events, applied);
    };
    ConsumerRegistry registry = lanes(engine);
    try {
      registry.reconcile();
      publishEvent("poison");
      publishEvent("healthy");
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
        registry.reconcile(); // as the runtime does periodically: a restarted lane is subscribed again
        return applied.contains("healthy");
      });
      try (Channel ch = consumer.createChannel()) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
          registry.reconcile();
          return ch.messageCount(Names.orchestratorDeadLetterQueue(WORKFLOW)) == 1
              && ch.messageCount(Names.orchestratorQueue(WORKFLOW)) == 0;
        });
        GetResponse parked = ch.basicGet(Names.orchestratorDeadLetterQueue(WORKFLOW), true);
        assertThat(parked.getProps().getMessageId()).isEqualTo("poison");
      }
      assertThat(applied).doesNotContain("poison");
    } finally {
      registry.stop(Duration.ofSeconds(2));
    }
  }

  /** One lane on the test's queue, with the engine's stand-in and no relay (nothing here sends commands). */
  private static ConsumerRegistry lanes(EventBatchApplier engine) {
    OutboxSignal noRelay = new OutboxSignal() {
      @Override
      public void committed(List<QueuedCommand> commands) {}

      @Override
      public void commandsWritten() {}
    };
    return ConsumerRegistry.start(consumer, publisher, new UnitOfWork(database, noRelay), engine, new RuntimeMetrics(),
        new ConsumerRegistry.Settings(1, 10, 5), () -> Set.of(WORKFLOW));
  }

  /** The stand-in's work: every event applied, in order. */
  private static List<Receipt> applyAll(List<InboundEvent> events, List<String> applied) {
    List<Receipt> verdicts = new ArrayList<>();
    for (InboundEvent e : events) {
      applied.add(e.messageId());
      verdicts.add(Receipt.applied("default", InstanceStatus.RUNNING, 1));
    }
    return verdicts;
  }

  private static void publishEvent(String messageId) throws Exception {
    Map<String, Object> headers = Map.of("baton-workflow", WORKFLOW, "baton-instance", UUID.randomUUID().toString(),
        "baton-step", "one", "baton-attempt", 1, "baton-action", "one");
    try (Channel ch = publisher.createChannel()) {
      ch.confirmSelect();
      ch.basicPublish(Names.eventExchange("lanes-a"), "order.one.success", new AMQP.BasicProperties.Builder().messageId(messageId)
          .contentType("application/json").deliveryMode(2).headers(headers).build(),
          "{\"output\":{}}".getBytes(StandardCharsets.UTF_8));
      ch.waitForConfirmsOrDie(5_000);
    }
  }
}
