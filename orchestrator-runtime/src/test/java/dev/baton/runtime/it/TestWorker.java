package dev.baton.runtime.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.contract.RetryStaircase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker written against docs/design.md#message-contract alone, with the raw AMQP client (no Baton code but the
 * contract's names): it consumes {@code q.S.C} with manual ACK, answers on {@code S.event.topic.ex} with
 * {@code <baton-entity>.<baton-action>.<result>}, copies the {@code baton-*} headers, {@code traceparent} and
 * {@code correlation_id}, publishes with confirms and ACKs once confirmed. Like a real worker it dedupes by
 * {@code message_id}: a command seen before (or still in its handler) is answered again with the same event, without
 * applying its effect twice. The ledger counts effects per (instance, step, action): any count above one is a double
 * effect. Asked to ({@link Rules}), it also climbs the staircase, answers a command past its deadline
 * {@code expired}, parks a command whose result is over a size limit, and consumes subscriptions: the worker
 * conformance suite runs it so (conformance/README.md).
 */
final class TestWorker implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A command as the worker received it. */
  record Command(String service, String command, String messageId, Map<String, Object> headers, JsonNode body,
      String correlationId) {

    String header(String name) {
      Object v = headers.get(name);
      return v == null ? null : v.toString();
    }

    String instance() {
      return header("baton-instance");
    }

    String step() {
      return header("baton-step");
    }

    String action() {
      return header("baton-action");
    }

    int attempt() {
      return Integer.parseInt(header("baton-attempt"));
    }
  }

  /** What the worker answers. */
  record Reply(String result, JsonNode output, String errorCode, String reason) {
    static final Reply SILENT = new Reply(null, null, null, null);
    static final Reply HOLD = new Reply("hold", null, null, null);

    static Reply success(JsonNode output) {
      return new Reply("success", output, null, null);
    }

    static Reply failed(String code, String reason) {
      return new Reply("failed", null, code, reason);
    }

    static Reply error(String code, String reason) {
      return new Reply("error", null, code, reason);
    }

    /** Not run: the command came past its deadline (body {@code {"reason"}}). */
    static Reply expired(String reason) {
      return new Reply("expired", null, null, reason);
    }
  }

  /**
   * What the worker does beyond the basics, for a test that asks (the worker conformance suite): the staircase when
   * a behaviour throws (a retry through the tier of {@code staircase}, then the dead-letter queue and an {@code error}
   * event), the deadline (a command past its {@code baton-deadline} answered {@code expired} without running), and,
   * when {@code maxResultBytes} is above 0, the SDKs' result size limit (a result event body larger than that is not
   * published: the command is parked at once with {@code x-exception-type} {@value #PAYLOAD_TOO_LARGE} and answered
   * {@code error} with that code, as the worker SDK does). The runtime's own tests use {@link #NONE}: their
   * behaviours do not throw, they decide what a late command gets, and some answer with outputs of any size.
   */
  record Rules(RetryStaircase staircase, boolean deadlines, int maxResultBytes) {
    static final Rules NONE = new Rules(null, false);
    /** {@code x-exception-type} of the dead letter and {@code errorCode} of the {@code error} event. */
    static final String PAYLOAD_TOO_LARGE = "PayloadTooLarge";

    /** Without a result size limit. */
    Rules(RetryStaircase staircase, boolean deadlines) {
      this(staircase, deadlines, 0);
    }

    /** These rules, with results whose event body is over {@code bytes} parked instead of published. */
    Rules limitingResultsTo(int bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("a result size limit must be at least 1 byte, got " + bytes);
      }
      return new Rules(staircase, deadlines, bytes);
    }

    boolean limitsResults() {
      return maxResultBytes > 0;
    }
  }

  /** An event as a subscription received it; {@code retries}: the subscription's own, 0 on the first delivery. */
  record Event(String messageId, String routingKey, Map<String, Object> headers, JsonNode body, int retries) {}

  @FunctionalInterface
  interface Listener {
    void handle(Event event);
  }

  @FunctionalInterface
  interface Behaviour {
    Reply handle(Command command);
  }

  private final Connection connection;
  private final List<Channel> channels = new ArrayList<>();
  private final Map<String, AtomicInteger> ledger = new ConcurrentHashMap<>();
  private final Queue<String> effects = new ConcurrentLinkedQueue<>();
  private final Map<String, Sent> answered = new ConcurrentHashMap<>();
  private final Map<String, Object> claims = new ConcurrentHashMap<>();
  private final Queue<Command> held = new ConcurrentLinkedQueue<>();
  private final Queue<Command> received = new ConcurrentLinkedQueue<>();

  private record Sent(String eventId, Reply reply) {}

  TestWorker(Connection connection) {
    this.connection = connection;
  }

  /**
   * Consumes {@code q.S.C} (the queue name comes from the operator's plan; here from the test's topology). Events are
   * published with asynchronous confirms; a command is ACKed once the confirm of its event is in.
   */
  TestWorker serve(String queue, String service, String command, Behaviour behaviour) {
    return serve(queue, service, command, behaviour, Rules.NONE);
  }

  /** As {@link #serve(String, String, String, Behaviour)}, with the staircase and the deadline as {@code rules} say. */
  TestWorker serve(String queue, String service, String command, Behaviour behaviour, Rules rules) {
    try {
      Channel consume = connection.createChannel();
      Channel publish = connection.createChannel();
      channels.add(consume);
      channels.add(publish);
      publish.confirmSelect();
      ConcurrentNavigableMap<Long, Long> unconfirmed = new ConcurrentSkipListMap<>();
      publish.addConfirmListener(
          (seq, multiple) -> settle(consume, unconfirmed, seq, multiple, true),
          (seq, multiple) -> settle(consume, unconfirmed, seq, multiple, false));
      consume.basicQos(100);
      Channel retry = rules.staircase() == null && !rules.limitsResults() ? null : confirmChannel();
      consume.basicConsume(queue, false, new DefaultConsumer(consume) {
        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
            throws IOException {
          Command c = new Command(service, command, props.getMessageId(), strings(props.getHeaders()),
              JSON.readTree(body), props.getCorrelationId());
          received.add(c);
          Sent sent;
          if (rules.deadlines() && !answered.containsKey(c.messageId()) && pastDeadline(c) != null) {
            // never started after its deadline; not remembered: it did not run
            sent = new Sent(UUID.randomUUID().toString(), Reply.expired("the deadline had passed by "
                + pastDeadline(c).toMillis() + " ms when the command was taken"));
            unconfirmed.put(publish.getNextPublishSeqNo(), envelope.getDeliveryTag());
            publish.basicPublish(Names.eventExchange(c.service()), routingKey(c, sent), properties(c, sent),
                eventBody(c, sent));
            return;
          }
          // The message_id stays claimed while its handler runs: a redelivery that arrives meanwhile (on the channel
          // recovered after a connection drop) waits for it, then gets its answer instead of a second run.
          synchronized (claims.computeIfAbsent(c.messageId(), k -> new Object())) {
            sent = answered.get(c.messageId());
            if (sent == null) {
              Reply reply;
              try {
                reply = behaviour.handle(c);
              } catch (RuntimeException failure) {
                if (rules.staircase() == null) {
                  throw failure;
                }
                if (climb(retry, rules.staircase(), service, command, envelope, props, body, retries(c.headers()),
                    failure)) {
                  answer(retry, c, new Sent(UUID.randomUUID().toString(),
                      Reply.error(failure.getClass().getName(), String.valueOf(failure.getMessage()))));
                }
                getChannel().basicAck(envelope.getDeliveryTag(), false);
                return;
              }
              if (reply == Reply.HOLD) {
                held.add(c);
              } else if (reply != Reply.SILENT) {
                record(c);
                sent = new Sent(UUID.randomUUID().toString(), reply);
                int size = rules.limitsResults() ? eventBody(c, sent).length : 0;
                if (rules.limitsResults() && size > rules.maxResultBytes()) {
                  // It would be as large on every retry: parked at once, and not remembered (a copy runs again).
                  String reason = "the result event of command " + command + " is " + size
                      + " bytes, over the limit of " + rules.maxResultBytes() + " bytes: not published";
                  park(retry, service, command, envelope, props, body, retries(c.headers()),
                      Rules.PAYLOAD_TOO_LARGE, reason);
                  answer(retry, c, new Sent(UUID.randomUUID().toString(),
                      Reply.error(Rules.PAYLOAD_TOO_LARGE, reason)));
                  getChannel().basicAck(envelope.getDeliveryTag(), false);
                  return;
                }
                answered.put(c.messageId(), sent);
              }
            } // else: a redelivered command gets the same answer, without a second effect
          }
          if (sent == null) {
            getChannel().basicAck(envelope.getDeliveryTag(), false);
          } else {
            unconfirmed.put(publish.getNextPublishSeqNo(), envelope.getDeliveryTag());
            publish.basicPublish(Names.eventExchange(c.service()), routingKey(c, sent), properties(c, sent),
                eventBody(c, sent));
          }
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  /**
   * Consumes the subscription queue {@code queue} of {@code service}: each event handed to {@code listener}, acked
   * after it; one it throws on climbs {@code rules}' staircase (tiers return it straight to the queue), then parks.
   */
  TestWorker subscribe(String queue, String service, String subscription, Listener listener, Rules rules) {
    try {
      Channel consume = connection.createChannel();
      channels.add(consume);
      Channel retry = confirmChannel();
      consume.basicQos(100);
      consume.basicConsume(queue, false, new DefaultConsumer(consume) {
        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
            throws IOException {
          Map<String, Object> headers = strings(props.getHeaders());
          // an event carries its producer's baton-retries; only one back from our own tier (default exchange) counts
          int retries = envelope.getExchange().isEmpty() ? retries(headers) : 0;
          try {
            listener.handle(new Event(props.getMessageId(), envelope.getRoutingKey(), headers, JSON.readTree(body),
                retries));
          } catch (RuntimeException failure) {
            climb(retry, rules.staircase(), service, subscription, envelope, props, body, retries, failure);
          }
          getChannel().basicAck(envelope.getDeliveryTag(), false);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  private Channel confirmChannel() throws IOException {
    Channel ch = connection.createChannel();
    ch.confirmSelect();
    channels.add(ch);
    return ch;
  }

  /**
   * The staircase (docs/message-contract.md): the message again, {@code baton-retries} one up, to its tier; or, the
   * attempts spent, to the dead-letter queue with the failure. Confirmed before it returns; true when it parked it.
   */
  private static boolean climb(Channel retry, RetryStaircase staircase, String service, String consumer,
      Envelope envelope, AMQP.BasicProperties props, byte[] body, int retries, RuntimeException failure)
      throws IOException {
    if (!staircase.mayRetryAfter(retries)) {
      park(retry, service, consumer, envelope, props, body, retries, failure.getClass().getName(),
          String.valueOf(failure.getMessage()));
      return true;
    }
    Map<String, Object> headers = originalHeaders(envelope, props);
    headers.put(Headers.RETRIES, retries + 1);
    publishConfirmed(retry, service, Names.retryQueue(service, consumer, staircase.delayBeforeRetry(retries + 1)),
        props.builder().headers(headers).build(), body);
    return false;
  }

  /**
   * Parks the message in {@code q.dlx.S.<consumer>} (docs/message-contract.md): through the retry exchange, with why
   * in {@code x-exception-*} and where from in {@code x-original-*}, the retries it had in {@code baton-retries}.
   * Confirmed before it returns.
   */
  private static void park(Channel retry, String service, String consumer, Envelope envelope,
      AMQP.BasicProperties props, byte[] body, int retries, String type, String reason) throws IOException {
    Map<String, Object> headers = originalHeaders(envelope, props);
    headers.put(Headers.RETRIES, retries);
    headers.put(Headers.EXCEPTION_MESSAGE, reason);
    headers.put(Headers.EXCEPTION_TYPE, type);
    publishConfirmed(retry, service, Names.deadLetterQueue(service, consumer), props.builder().headers(headers).build(),
        body);
  }

  /** The message's headers, with the first exchange and key it came through kept along the tiers (which change them). */
  private static Map<String, Object> originalHeaders(Envelope envelope, AMQP.BasicProperties props) {
    Map<String, Object> headers = new HashMap<>(props.getHeaders() == null ? Map.of() : props.getHeaders());
    headers.putIfAbsent(Headers.ORIGINAL_EXCHANGE, envelope.getExchange());
    headers.putIfAbsent(Headers.ORIGINAL_ROUTING_KEY, envelope.getRoutingKey());
    return headers;
  }

  private static void publishConfirmed(Channel retry, String service, String queue, AMQP.BasicProperties props,
      byte[] body) throws IOException {
    retry.basicPublish(Names.retryExchange(service), queue, true, props, body);
    try {
      retry.waitForConfirmsOrDie(10_000);
    } catch (Exception e) {
      throw new IOException("no confirm for " + queue, e);
    }
  }

  private static int retries(Map<String, Object> headers) {
    Object r = headers.get(Headers.RETRIES);
    try {
      return r == null ? 0 : Integer.parseInt(r.toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** How long ago the command's {@code baton-deadline} passed, or null (none, not a whole number, or ahead). */
  private static java.time.Duration pastDeadline(Command c) {
    String deadline = c.header(Headers.DEADLINE);
    try {
      long late = deadline == null ? -1 : System.currentTimeMillis() - Long.parseLong(deadline.trim());
      return late >= 0 ? java.time.Duration.ofMillis(late) : null;
    } catch (NumberFormatException notAWholeNumber) {
      return null;
    }
  }

  /** The broker confirmed (or refused) events: ACK their commands (or return them to the queue). */
  private static void settle(Channel consume, ConcurrentNavigableMap<Long, Long> unconfirmed, long seq,
      boolean multiple, boolean ack) throws IOException {
    Map<Long, Long> done = multiple ? unconfirmed.headMap(seq, true) : subMap(unconfirmed, seq);
    for (Long tag : List.copyOf(done.values())) {
      if (ack) {
        consume.basicAck(tag, false);
      } else {
        consume.basicNack(tag, false, true);
      }
    }
    done.clear();
  }

  private static Map<Long, Long> subMap(ConcurrentNavigableMap<Long, Long> m, long seq) {
    return m.subMap(seq, true, seq, true);
  }

  /**
   * Answers the commands held when it is called, from the caller's thread. Those that arrive meanwhile stay held: the
   * answers free capacity (a concurrency limit), and what that lets go belongs to the next release (LimitIT counted a
   * command sent on an answer of this release as one of its own).
   */
  void release(Behaviour behaviour) {
    try {
      Channel publish = connection.createChannel();
      publish.confirmSelect();
      channels.add(publish);
      Command c;
      for (int n = held.size(); n > 0 && (c = held.poll()) != null; n--) {
        record(c);
        Sent sent = new Sent(UUID.randomUUID().toString(), behaviour.handle(c));
        answered.put(c.messageId(), sent);
        answer(publish, c, sent);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Answers the command held last (the newest), now, from the caller's thread; the others stay held. */
  void releaseLast(Behaviour behaviour) {
    Command last = null;
    for (Command c : held) {
      last = c;
    }
    if (last == null || !held.remove(last)) {
      throw new IllegalStateException("no command is held");
    }
    try (Channel publish = connection.createChannel()) {
      publish.confirmSelect();
      record(last);
      Sent sent = new Sent(UUID.randomUUID().toString(), behaviour.handle(last));
      answered.put(last.messageId(), sent);
      answer(publish, last, sent);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Publishes an event for a received command by hand, as a misbehaving or redelivering worker would.
   *
   * @param attempt the baton-attempt header to send (the command's own to answer it, another to be stale)
   */
  void publishEvent(Command c, String result, String eventId, int attempt) {
    publishEvent(c, result, eventId, attempt, JSON.createObjectNode().put("manual", true));
  }

  /** As {@link #publishEvent(Command, String, String, int)}, with this output on success. */
  void publishEvent(Command c, String result, String eventId, int attempt, JsonNode output) {
    try (Channel publish = connection.createChannel()) {
      publish.confirmSelect();
      Map<String, Object> headers = new HashMap<>(c.headers());
      headers.put("baton-attempt", attempt);
      Command altered = new Command(c.service(), c.command(), c.messageId(), headers, c.body(), c.correlationId());
      Reply reply = "success".equals(result) ? Reply.success(output)
          : new Reply(result, null, "MANUAL", "published by the test");
      answer(publish, altered, new Sent(eventId, reply));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  int heldCount() {
    return held.size();
  }

  List<Command> received() {
    return List.copyOf(received);
  }

  /** How many times the effect of (instance, step, action) was applied. */
  Map<String, Integer> ledger() {
    Map<String, Integer> copy = new HashMap<>();
    ledger.forEach((k, v) -> copy.put(k, v.get()));
    return copy;
  }

  /** "instance|action" in the order the effects were applied. */
  List<String> effects() {
    return List.copyOf(effects);
  }

  private void record(Command c) {
    ledger.computeIfAbsent(c.instance() + "|" + c.step() + "|" + c.action(), k -> new AtomicInteger()).incrementAndGet();
    effects.add(c.instance() + "|" + c.action());
  }

  /** Publishes the event of a command and waits for its confirm (docs/design.md#message-contract). */
  private static void answer(Channel publish, Command c, Sent sent) throws IOException {
    publish.basicPublish(Names.eventExchange(c.service()), routingKey(c, sent), properties(c, sent),
        eventBody(c, sent));
    try {
      publish.waitForConfirmsOrDie(10_000);
    } catch (Exception e) {
      throw new IOException("no confirm for the event of " + c.messageId(), e);
    }
  }

  /** {@code <baton-entity>.<baton-action>.<result>}. */
  private static String routingKey(Command c, Sent sent) {
    return c.header("baton-entity") + "." + c.action() + "." + sent.reply().result();
  }

  /** Every {@code baton-*} header and {@code traceparent} copied, the correlation id copied, a message id of its own. */
  private static AMQP.BasicProperties properties(Command c, Sent sent) {
    Map<String, Object> headers = new HashMap<>();
    c.headers().forEach((k, v) -> {
      if (k.startsWith("baton-") || k.equals("traceparent")) {
        headers.put(k, v);
      }
    });
    return new AMQP.BasicProperties.Builder()
        .messageId(sent.eventId())
        .correlationId(c.correlationId())
        .contentType("application/json")
        .deliveryMode(2)
        .timestamp(new java.util.Date())
        .headers(headers)
        .build();
  }

  /**
   * {@code instanceId}, {@code step} and {@code attempt} (from the headers the event copies), then {@code output} on
   * success, {@code errorCode} and {@code reason} otherwise ({@code reason} alone when expired).
   */
  private static byte[] eventBody(Command c, Sent sent) throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("instanceId", c.instance());
    body.put("step", c.step());
    String attempt = c.header(Headers.ATTEMPT);
    try {
      body.put("attempt", attempt == null ? null : Integer.valueOf(attempt.trim()));
    } catch (NumberFormatException notANumber) {
      body.put("attempt", attempt);
    }
    if (sent.reply().output() != null) {
      body.set("output", sent.reply().output());
    }
    if (sent.reply().errorCode() != null) {
      body.put("errorCode", sent.reply().errorCode());
    }
    if (sent.reply().reason() != null) {
      body.put("reason", sent.reply().reason());
    }
    return JSON.writeValueAsBytes(body);
  }

  private static Map<String, Object> strings(Map<String, Object> headers) {
    Map<String, Object> out = new HashMap<>();
    if (headers != null) {
      headers.forEach((k, v) -> out.put(k, v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8)
          : v instanceof Number ? v : String.valueOf(v)));
    }
    return out;
  }

  @Override
  public void close() {
    for (Channel ch : channels) {
      try {
        if (ch.isOpen()) {
          ch.close();
        }
      } catch (Exception ignored) {
        // closing
      }
    }
  }
}
