package dev.baton.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.contract.topology.QueueSpec;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.broker.AmqpBrokerClient;
import dev.baton.operator.broker.BrokerBinding;
import dev.baton.operator.broker.BrokerException;
import dev.baton.sandbox.LocalServices;
import dev.baton.sandbox.RabbitVhost;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The broker client's contract kept over AMQP, on the real broker: declaring is idempotent, a declaration that differs
 * from what exists is refused with the broker's reason (and the channel it closed is replaced), deleting what is gone
 * succeeds, and an idle classic queue is deleted only when the broker finds it idle.
 */
class AmqpBrokerClientIT {

  static RabbitVhost vhost;
  static AmqpBrokerClient broker;

  @BeforeAll
  static void start() {
    vhost = RabbitVhost.create("op-amqp");
    broker = AmqpBrokerClient.create(OperatorSettings.localDefaults().toBuilder()
        .managementUrl(LocalServices.RABBITMQ_MANAGEMENT_URL)
        .admin(LocalServices.RABBITMQ_USERNAME, LocalServices.RABBITMQ_PASSWORD)
        .amqp(LocalServices.RABBITMQ_HOST, LocalServices.RABBITMQ_PORT).vhost(vhost.name()).build());
  }

  @AfterAll
  static void stop() {
    broker.close();
    vhost.close();
  }

  @Test
  void declarations_are_idempotent_and_land_on_the_broker() {
    ExchangeSpec exchange = new ExchangeSpec("idem.event.topic.ex", ExchangeSpec.Type.TOPIC);
    QueueSpec queue = classic("q.idem.work", 30_000L);
    BindingSpec binding = new BindingSpec("idem.event.topic.ex", "q.idem.work", "idem.work");
    for (int i = 0; i < 2; i++) {
      broker.declareExchange(exchange);
      broker.declareQueue(queue);
      broker.bind(binding);
    }

    assertThat(broker.exchanges()).anySatisfy(e -> assertThat(e.name()).isEqualTo("idem.event.topic.ex"));
    assertThat(broker.queue("q.idem.work")).get()
        .satisfies(q -> assertThat(q.arguments()).containsEntry("x-message-ttl", 30_000));
    assertThat(broker.bindings()).extracting(BrokerBinding::spec).containsOnlyOnce(binding);
  }

  @Test
  void a_queue_declared_with_other_arguments_is_refused_with_the_brokers_reason_and_the_pool_goes_on() {
    broker.declareQueue(classic("q.args.work", 30_000L));

    assertThatThrownBy(() -> broker.declareQueue(classic("q.args.work", 60_000L)))
        .isInstanceOfSatisfying(BrokerException.class,
            e -> assertThat(e.failure()).isEqualTo(BrokerException.Failure.REJECTED))
        .hasMessageContaining("declaring queue q.args.work was refused by RabbitMQ")
        .hasMessageContaining("PRECONDITION_FAILED")
        .hasMessageContaining("x-message-ttl");
    // More refusals than the pool has channels: each closed channel is replaced.
    broker.declareExchange(new ExchangeSpec("args.event.topic.ex", ExchangeSpec.Type.TOPIC));
    for (int i = 0; i < 20; i++) {
      assertThatThrownBy(() -> broker.declareExchange(new ExchangeSpec("args.event.topic.ex", ExchangeSpec.Type.DIRECT)))
          .isInstanceOf(BrokerException.class);
    }
    broker.declareQueue(classic("q.args.next", 30_000L));
    assertThat(broker.queue("q.args.next")).isPresent();
  }

  @Test
  void an_exchange_declared_with_another_type_is_refused() {
    broker.declareExchange(new ExchangeSpec("typed.retry.direct.ex", ExchangeSpec.Type.DIRECT));

    assertThatThrownBy(() -> broker.declareExchange(new ExchangeSpec("typed.retry.direct.ex", ExchangeSpec.Type.TOPIC)))
        .isInstanceOfSatisfying(BrokerException.class,
            e -> assertThat(e.failure()).isEqualTo(BrokerException.Failure.REJECTED))
        .hasMessageContaining("declaring exchange typed.retry.direct.ex was refused by RabbitMQ")
        .hasMessageContaining("PRECONDITION_FAILED");
  }

  @Test
  void deleting_what_is_gone_succeeds() {
    broker.deleteQueue("q.never.declared");
    broker.deleteExchange("never.event.topic.ex");
    broker.unbind(new BrokerBinding("never.event.topic.ex", "q.never.declared", "never.x", "never.x"));
    assertThat(broker.deleteQueueIfIdle("q.never.declared")).isTrue();

    broker.declareExchange(new ExchangeSpec("gone.event.topic.ex", ExchangeSpec.Type.TOPIC));
    broker.declareQueue(classic("q.gone.work", 30_000L));
    BindingSpec binding = new BindingSpec("gone.event.topic.ex", "q.gone.work", "gone.work");
    broker.bind(binding);
    BrokerBinding bound = new BrokerBinding("gone.event.topic.ex", "q.gone.work", "gone.work", "gone.work");
    broker.unbind(bound);
    broker.unbind(bound);
    broker.deleteQueue("q.gone.work");
    broker.deleteQueue("q.gone.work");
    broker.deleteExchange("gone.event.topic.ex");

    assertThat(broker.queue("q.gone.work")).isEmpty();
    assertThat(broker.exchanges()).noneSatisfy(e -> assertThat(e.name()).isEqualTo("gone.event.topic.ex"));
  }

  @Test
  void a_classic_queue_holding_a_message_is_kept_by_delete_if_idle_and_an_empty_one_goes() {
    broker.declareQueue(classic("q.idle.full", 30_000L));
    broker.declareQueue(classic("q.idle.empty", 30_000L));
    Amqp.publish(vhost, "", "q.idle.full");

    assertThat(broker.deleteQueueIfIdle("q.idle.full")).isFalse();
    assertThat(broker.deleteQueueIfIdle("q.idle.empty")).isTrue();
    assertThat(Amqp.ready(vhost, "q.idle.full")).isEqualTo(1);
    assertThat(broker.queue("q.idle.empty")).isEmpty();
  }

  @Test
  void many_threads_declare_at_once_on_the_few_channels() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(40);
    try {
      List<Future<?>> done = IntStream.range(0, 200).<Future<?>>mapToObj(i -> threads.submit(() ->
          broker.declareQueue(classic("q.many.c" + i, 30_000L)))).toList();
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    Set<String> names = broker.queues().stream().map(q -> q.name()).filter(n -> n.startsWith("q.many."))
        .collect(Collectors.toSet());
    assertThat(names).hasSize(200);
  }

  private static QueueSpec classic(String name, long ttl) {
    return new QueueSpec(name, QueueSpec.Role.CONSUMER, Map.of("x-queue-type", "classic", "x-message-ttl", ttl));
  }
}
