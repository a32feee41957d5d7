package dev.baton.cli.dlq;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.cli.support.CliException;
import dev.baton.cli.support.Documents;
import dev.baton.cli.support.EnvVariable;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.OutputOptions;
import dev.baton.cli.support.Table;
import dev.baton.cli.support.Times;
import dev.baton.contract.Headers;
import dev.baton.deadletters.DeadLetterBrowser.QueueCount;
import dev.baton.deadletters.DeadLetterBrowser;
import dev.baton.deadletters.DeadLetterQueue;
import dev.baton.deadletters.ParkedMessage;
import dev.baton.deadletters.ReplayTarget;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
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

  @Option(names = {"-s", "--service"}, paramLabel = "S", description = "Only the dead-letter queues of service S.")
  String service;

  @Option(names = {"-q", "--queue"}, paramLabel = "Q", description = "Show the messages of this dead-letter queue.")
  String queue;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
      description = "With --queue: at most N messages, oldest first.")
  int limit;

  @EnvVariable("BATON_RABBITMQ_CA_FILE")
  @Option(names = {"--rabbitmq-ca-file", "--cacert"}, paramLabel = "FILE", description = "PEM file of the CA that"
      + " signed the management API's certificate (https with a private CA), read as the runtime and the workers"
      + " read it. Default: the JVM's trust store.")
  String caFile;

  @Mixin BrokerOptions broker;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (limit < 1 || limit > MAX_PEEK) {
      throw new ParameterException(spec.commandLine(), "--limit must be from 1 to " + MAX_PEEK + ", got " + limit);
    }
    DeadLetterBrowser browser = new DeadLetterBrowser(Broker.management(broker, caFile), broker.vhost);
    if (queue == null) {
      queues(browser, spec.commandLine().getOut());
    } else {
      messages(browser, Broker.deadLetterQueue(queue), spec.commandLine().getOut());
    }
    return ExitCodes.OK;
  }

  private void queues(DeadLetterBrowser browser, PrintWriter out) {
    List<QueueCount> queues = Broker.call(broker, () -> browser.queues(service)).orElseThrow(() ->
        CliException.server("vhost '" + broker.vhost + "' does not exist on RabbitMQ: check --vhost"));
    if (output.isName()) {
      queues.forEach(q -> out.println(DeadLetterNames.queue(q.queue())));
      out.flush();
      return;
    }
    if (output.isDocument()) {
      ObjectNode doc = Json.object();
      doc.put("vhost", broker.vhost);
      ArrayNode items = doc.putArray("queues");
      for (QueueCount q : queues) {
        DeadLetterQueue dlq = q.queue();
        items.addObject().put("name", dlq.name()).put("service", dlq.service()).put("consumer", dlq.consumer())
            .put("messages", q.messages());
      }
      Documents.print(out, output.format(), doc);
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
    for (QueueCount q : queues) {
      DeadLetterQueue dlq = q.queue();
      t.row(dlq.name(), dlq.service(), dlq.consumer(), q.messages());
      total += q.messages();
    }
    t.print(out);
    out.println();
    out.println(total + " dead letter" + (total == 1 ? "" : "s") + " in vhost " + broker.vhost
        + (total == 0 ? "." : ". See them with: baton dlq list --queue <queue>; move them back with: baton dlq"
            + " replay <queue>"));
    out.flush();
  }

  private void messages(DeadLetterBrowser browser, DeadLetterQueue dlq, PrintWriter out) {
    List<ParkedMessage> messages = Broker.call(broker, () -> browser.peek(dlq, limit)).orElseThrow(() ->
        CliException.server("no queue " + dlq.name() + " in vhost " + broker.vhost + " (see baton dlq list)"));
    if (output.isName()) {
      messages.forEach(m -> out.println(DeadLetterNames.message(dlq, m.messageId())));
      out.flush();
      return;
    }
    if (output.isDocument()) {
      ObjectNode doc = Json.object();
      doc.put("queue", dlq.name());
      doc.put("vhost", broker.vhost);
      ArrayNode items = doc.putArray("messages");
      messages.forEach(m -> items.add(toJson(m)));
      Documents.print(out, output.format(), doc);
      return;
    }
    if (messages.isEmpty()) {
      out.println(dlq.name() + " is empty.");
      out.flush();
      return;
    }
    Instant now = Instant.now();
    messageTable(messages, output.isWide(), now).print(out);
    out.println();
    out.println("Showing " + messages.size() + " message" + (messages.size() == 1 ? "" : "s") + " of " + dlq.name()
        + " (peeked, not consumed). Replay with: baton dlq replay " + dlq.name()
        + " [--message-id ID | --count N] [--dry-run]");
    out.flush();
  }

  /**
   * The messages of a queue: MESSAGE ID, ROUTING KEY, INSTANCE, STEP, EXCEPTION (cut at 100 characters) and AGE; with
   * {@code -o wide} the whole exception, then RETRIES (baton-retries), REPLAYS (x-replay-count) and PARKED (when it
   * was dead-lettered, as a date and time).
   */
  static Table messageTable(List<ParkedMessage> messages, boolean wide, Instant now) {
    Table t = wide
        ? new Table("MESSAGE ID", "ROUTING KEY", "INSTANCE", "STEP", "EXCEPTION", "AGE", "RETRIES", "REPLAYS", "PARKED")
        : new Table("MESSAGE ID", "ROUTING KEY", "INSTANCE", "STEP", "EXCEPTION", "AGE");
    for (ParkedMessage m : messages) {
      if (wide) {
        t.row(m.messageId(), m.routingKey(), m.header(Headers.INSTANCE), m.header(Headers.STEP), m.exceptionText(),
            Times.age(m.timestamp(), now), m.header(Headers.RETRIES), m.header(ReplayTarget.REPLAY_COUNT),
            Times.dateTime(m.timestamp()));
      } else {
        t.row(m.messageId(), m.routingKey(), m.header(Headers.INSTANCE), m.header(Headers.STEP), m.exception(),
            Times.age(m.timestamp(), now));
      }
    }
    return t;
  }

  private static ObjectNode toJson(ParkedMessage m) {
    ObjectNode o = Json.object();
    o.put("messageId", m.messageId());
    o.put("routingKey", m.routingKey());
    o.put("exceptionType", m.header(Headers.EXCEPTION_TYPE));
    o.put("exceptionMessage", m.header(Headers.EXCEPTION_MESSAGE));
    o.put("instance", m.header(Headers.INSTANCE));
    o.put("step", m.header(Headers.STEP));
    if (m.timestamp() == null) {
      o.putNull("timestamp");
    } else {
      o.put("timestamp", m.timestamp().toString());
    }
    o.set("properties", Json.MAPPER.valueToTree(m.raw().getProperties()));
    o.put("payloadEncoding", m.raw().getPayloadEncoding());
    o.put("payload", m.raw().getPayload());
    return o;
  }
}
