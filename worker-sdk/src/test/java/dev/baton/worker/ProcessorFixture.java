package dev.baton.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.AMQP;
import dev.baton.contract.Headers;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ConsumerTopology;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.messaging.OutboundMessage;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A command queue's processor without a broker: service {@code payment}, command {@code pay} (entity {@code order}),
 * one retry after 1s, handlers on a pool of its own. What it decides is looked at directly.
 */
final class ProcessorFixture implements AutoCloseable {

  static final String SERVICE = "payment";

  final ConsumerTopology consumer = TopologyPlanner.plan(
      TestBroker.commandService(SERVICE, "pay", RetryStaircase.of(2, List.of("1s")))).consumers().get(0);
  final RecordingListener listener = new RecordingListener();
  final IdempotencyStore store = IdempotencyStore.inMemory(100);
  final TimedHandlers handlers;
  final HandlerLimits limits;

  ProcessorFixture(int handlerThreads, Duration handlerTimeout) {
    this.handlers = new TimedHandlers(handlerThreads, r -> {
      Thread t = new Thread(r, "fixture-handler");
      t.setDaemon(true);
      return t;
    }, listener);
    this.limits = new HandlerLimits(handlerTimeout, HandlerLimits.DEFAULT_MAX_RESULT_BYTES);
  }

  CommandProcessor processor(CommandHandler handler) {
    return new CommandProcessor(SERVICE, consumer, handler, store, listener, handlers, limits,
        new CommandTracing(OpenTelemetry.noop()));
  }

  /** Command {@code pay} as the runtime sends it, with these headers added (or replaced). */
  static InboundMessage command(String messageId, Map<String, Object> extraHeaders) {
    Map<String, Object> headers = new LinkedHashMap<>(TestBroker.commandHeaders("i-" + messageId, "pay"));
    headers.putAll(extraHeaders);
    AMQP.BasicProperties properties = TestBroker.commandProperties(messageId, "i-" + messageId, "pay").builder()
        .headers(headers).build();
    return new InboundMessage("payment.command.topic.ex", "service.payment.pay", false, properties,
        TestBroker.commandBody("i-" + messageId, "{}").getBytes(StandardCharsets.UTF_8));
  }

  static InboundMessage withDeadline(String messageId, Object deadline) {
    return command(messageId, Map.of(Headers.DEADLINE, deadline));
  }

  static long millisFromNow(Duration d) {
    return Instant.now().plus(d).toEpochMilli();
  }

  static JsonNode body(OutboundMessage m) throws IOException {
    return Bodies.MAPPER.readTree(m.body());
  }

  @Override
  public void close() {
    handlers.close();
  }

  /** What the SDK reported. */
  static final class RecordingListener implements WorkerListener {
    final List<Duration> expired = new CopyOnWriteArrayList<>();
    final List<String> stuck = new CopyOnWriteArrayList<>();
    final AtomicInteger handled = new AtomicInteger();

    @Override
    public void handled(String consumer, dev.baton.contract.EventResult result, Duration took) {
      handled.incrementAndGet();
    }

    @Override
    public void expired(String consumer, String messageId, Duration late) {
      expired.add(late);
    }

    @Override
    public void stuck(String consumer, String messageId, Duration running) {
      stuck.add(messageId);
    }
  }
}
