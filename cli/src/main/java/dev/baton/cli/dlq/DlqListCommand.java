package dev.baton.cli.dlq;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.rabbitmq.http.client.Client;
import com.rabbitmq.http.client.GetAckMode;
import com.rabbitmq.http.client.GetEncoding;
import com.rabbitmq.http.client.domain.InboundMessage;
import com.rabbitmq.http.client.domain.QueueInfo;
import dev.baton.cli.support.CliException;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.Json;
import dev.baton.cli.support.OutputOptions;
import dev.baton.cli.support.Table;
import dev.baton.cli.support.Times;
import dev.baton.contract.Headers;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code baton dlq list [--service S] [--queue Q]}: the dead-letter queues, or the messages of one. */
@Command(name = "list", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Lists the dead-letter queues (q.dlx.*) with their message counts, or, with --queue, the messages"
        + " of one: message id, original routing key, the exception that parked it, instance, step and age. Messages"
        + " are peeked (taken and put back at once), never consumed.",
        "Counts come from the management API's statistics, which lag by a few seconds."},
    footer = {"%nExamples:", "  baton dlq list", "  baton dlq list --service shipping",
        "  baton dlq list --queue q.dlx.shipping.ship -o json"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
public final class DlqListCommand implements Callable<Integer> {

  private static final int MAX_PEEK = 1000;
  private static final int TRUNCATE = 50_000;

  @Option(names = {"-s", "--service"}, paramLabel = "S", description = "Only the dead-letter queues of service S.")
  String service;

  @Option(names = {"-q", "--queue"}, paramLabel = "Q", description = "Show the messages of this dead-letter queue.")
  String queue;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
      description = "With --queue: at most N messages, oldest first.")
  int limit;

  @Mixin BrokerOptions broker;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (limit < 1 || limit > MAX_PEEK) {
      throw new ParameterException(spec.commandLine(), "--limit must be from 1 to " + MAX_PEEK + ", got " + limit);
    }
    Client client = Broker.management(broker);
    if (queue == null) {
      queues(client, spec.commandLine().getOut());
    } else {
      messages(client, DeadLetterQueue.parse(queue), spec.commandLine().getOut());
    }
    return ExitCodes.OK;
  }

  private void queues(Client client, PrintWriter out) {
    List<QueueInfo> all = Broker.call(broker, () -> client.getQueues(broker.vhost));
    if (all == null) {
      throw CliException.server("vhost '" + broker.vhost + "' does not exist on RabbitMQ: check --vhost");
    }
    List<QueueInfo> queues = all.stream()
        .filter(q -> DeadLetterQueue.isDeadLetterQueue(q.getName()))
        .filter(q -> service == null || DeadLetterQueue.parse(q.getName()).service().equals(service))
        .sorted(Comparator.comparing(QueueInfo::getName))
        .toList();
    if (!output.isTable()) {
      ObjectNode doc = Json.object();
      doc.put("vhost", broker.vhost);
      ArrayNode items = doc.putArray("queues");
      for (QueueInfo q : queues) {
        DeadLetterQueue dlq = DeadLetterQueue.parse(q.getName());
        items.addObject().put("name", q.getName()).put("service", dlq.service()).put("consumer", dlq.consumer())
            .put("messages", q.getTotalMessages());
      }
      Json.print(out, output.format(), doc);
      return;
    }
    if (queues.isEmpty()) {
      out.println("No dead-letter queues" + (service == null ? "" : " of service " + service) + " in vhost "
          + broker.vhost + ".");
      out.flush();
      return;
    }
    Table t = new Table("QUEUE", "SERVICE", "COMMAND/SUBSCRIPTION", "MESSAGES");
    long total = 0;
    for (QueueInfo q : queues) {
      DeadLetterQueue dlq = DeadLetterQueue.parse(q.getName());
      t.row(q.getName(), dlq.service(), dlq.consumer(), q.getTotalMessages());
      total += q.getTotalMessages();
    }
    t.print(out);
    out.println();
    out.println(total + " dead letter" + (total == 1 ? "" : "s") + " in vhost " + broker.vhost
        + (total == 0 ? "." : ". See them with: baton dlq list --queue <queue>; move them back with: baton dlq"
            + " replay <queue>"));
    out.flush();
  }

  private void messages(Client client, DeadLetterQueue dlq, PrintWriter out) {
    QueueInfo info = Broker.call(broker, () -> client.getQueue(broker.vhost, dlq.name()));
    if (info == null) {
      throw CliException.server("no queue " + dlq.name() + " in vhost " + broker.vhost + " (see baton dlq list)");
    }
    List<InboundMessage> peeked = Broker.call(broker, () -> client.get(broker.vhost, dlq.name(), limit,
        GetAckMode.REJECT_REQUEUE_TRUE, GetEncoding.AUTO, TRUNCATE));
    List<PeekedMessage> messages = (peeked == null ? List.<InboundMessage>of() : peeked).stream()
        .map(PeekedMessage::of).toList();
    if (!output.isTable()) {
      ObjectNode doc = Json.object();
      doc.put("queue", dlq.name());
      doc.put("vhost", broker.vhost);
      ArrayNode items = doc.putArray("messages");
      messages.forEach(m -> items.add(m.toJson()));
      Json.print(out, output.format(), doc);
      return;
    }
    if (messages.isEmpty()) {
      out.println(dlq.name() + " is empty.");
      out.flush();
      return;
    }
    Instant now = Instant.now();
    Table t = new Table("MESSAGE ID", "ROUTING KEY", "INSTANCE", "STEP", "EXCEPTION", "AGE");
    for (PeekedMessage m : messages) {
      t.row(m.messageId(), m.routingKey(), m.header(Headers.INSTANCE), m.header(Headers.STEP), m.exception(),
          Times.age(m.timestamp(), now));
    }
    t.print(out);
    out.println();
    out.println("Showing " + messages.size() + " message" + (messages.size() == 1 ? "" : "s") + " of " + dlq.name()
        + " (peeked, not consumed). Replay with: baton dlq replay " + dlq.name()
        + " [--message-id ID | --count N] [--dry-run]");
    out.flush();
  }

  /** A message looked at through the management API. */
  record PeekedMessage(String messageId, String routingKey, Map<String, Object> headers, Instant timestamp,
      InboundMessage raw) {

    @SuppressWarnings("unchecked")
    static PeekedMessage of(InboundMessage m) {
      Map<String, Object> props = m.getProperties() == null ? Map.of() : m.getProperties();
      Map<String, Object> headers = props.get("headers") instanceof Map<?, ?> h ? (Map<String, Object>) h : Map.of();
      Object ts = props.get("timestamp");
      Instant timestamp = ts instanceof Number n ? Instant.ofEpochSecond(n.longValue()) : null;
      Object key = headers.get(Headers.ORIGINAL_ROUTING_KEY);
      return new PeekedMessage(props.get("message_id") == null ? "" : props.get("message_id").toString(),
          key == null ? m.getRoutingKey() : key.toString(), headers, timestamp, m);
    }

    String header(String name) {
      Object v = headers.get(name);
      return v == null ? "" : v.toString();
    }

    String exception() {
      String type = header(Headers.EXCEPTION_TYPE);
      String message = header(Headers.EXCEPTION_MESSAGE);
      String simple = type.substring(Math.max(type.lastIndexOf('.'), type.lastIndexOf('$')) + 1);
      String text = message.isEmpty() ? simple : simple.isEmpty() ? message : simple + ": " + message;
      return text.length() > 100 ? text.substring(0, 97) + "..." : text;
    }

    ObjectNode toJson() {
      ObjectNode o = Json.object();
      o.put("messageId", messageId);
      o.put("routingKey", routingKey);
      o.put("exceptionType", header(Headers.EXCEPTION_TYPE));
      o.put("exceptionMessage", header(Headers.EXCEPTION_MESSAGE));
      o.put("instance", header(Headers.INSTANCE));
      o.put("step", header(Headers.STEP));
      if (timestamp == null) {
        o.putNull("timestamp");
      } else {
        o.put("timestamp", timestamp.toString());
      }
      o.set("properties", Json.MAPPER.valueToTree(raw.getProperties()));
      o.put("payloadEncoding", raw.getPayloadEncoding());
      o.put("payload", raw.getPayload());
      return o;
    }
  }
}
