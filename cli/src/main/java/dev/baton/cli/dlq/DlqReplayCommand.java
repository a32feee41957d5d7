package dev.baton.cli.dlq;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import dev.baton.api.json.Json;
import dev.baton.cli.support.CliException;
import dev.baton.cli.support.Documents;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.OutputOptions;
import dev.baton.cli.support.Table;
import dev.baton.deadletters.DeadLetterQueue;
import dev.baton.deadletters.Replayer;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton dlq replay <queue> [--count N | --message-id ID] [--dry-run]}. */
@Command(name = "replay", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Moves dead letters back to where they came from, once their cause is fixed: a command to its"
        + " command exchange (x-original-exchange, else <service>.command.topic.ex) with its original routing key; a"
        + " subscription's event to its subscription queue only.",
        "Every header is kept except: baton-retries is reset to 0 (a fresh retry staircase), the x-exception-*"
            + " headers are dropped, and x-replay-count counts replays. The message_id stays.",
        "Each message is published with a publisher confirm and only then removed from the dead-letter queue: a"
            + " failure half-way loses nothing (at worst, a crash between the two leaves a duplicate, which workers"
            + " recognise by its message_id)."},
    footer = {"%nExamples:", "  baton dlq replay q.dlx.shipping.ship --dry-run",
        "  baton dlq replay q.dlx.shipping.ship --message-id 6f1c2d3e-...",
        "  baton dlq replay q.dlx.payment.pay --count 10"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
public final class DlqReplayCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<queue>", description = "The dead-letter queue, e.g. q.dlx.shipping.ship.")
  String queue;

  @ArgGroup(exclusive = true)
  Which which;

  static final class Which {
    @Option(names = {"-c", "--count"}, paramLabel = "N", description = "Only the first N messages (default: all).")
    Integer count;

    @Option(names = {"-m", "--message-id"}, paramLabel = "ID", description = "Only the message with this message_id.")
    String messageId;
  }

  @Option(names = "--dry-run", description = "Show what would be replayed, and where to; move nothing.")
  boolean dryRun;

  @Mixin BrokerOptions broker;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (which != null && which.count != null && which.count < 1) {
      throw new ParameterException(spec.commandLine(), "--count must be at least 1, got " + which.count);
    }
    DeadLetterQueue dlq = Broker.deadLetterQueue(queue);
    Replayer.Selection selection = new Replayer.Selection(which == null ? null : which.count,
        which == null ? null : which.messageId, dryRun);
    Replayer.Result result;
    try (Connection connection = Broker.amqp(broker, "baton-cli-dlq-replay")) {
      result = Replayer.replay(connection, dlq, selection);
    } catch (Replayer.UnroutableReplayException e) {
      throw CliException.server(e.getMessage());
    } catch (ShutdownSignalException | IOException | TimeoutException e) {
      throw failure(dlq, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CliException.server("interrupted: nothing unconfirmed was removed from " + dlq.name());
    }
    print(spec.commandLine().getOut(), dlq, result);
    if (selection.messageId() != null && result.moved().isEmpty()) {
      throw CliException.server("no message with message_id " + selection.messageId() + " in " + dlq.name());
    }
    return ExitCodes.OK;
  }

  private CliException failure(DeadLetterQueue dlq, Exception e) {
    String reason = Broker.reason(e);
    if (reason.contains("NOT_FOUND")) {
      return CliException.server("no queue " + dlq.name() + " in vhost " + broker.vhost + " (see baton dlq list)");
    }
    return CliException.server("replaying " + dlq.name() + " stopped: " + reason + "; messages not confirmed stay in "
        + dlq.name() + " (see baton dlq list --queue " + dlq.name() + ")");
  }

  private void print(PrintWriter out, DeadLetterQueue dlq, Replayer.Result result) {
    if (output.isName()) {
      result.moved().forEach(m -> out.println(DeadLetterNames.message(dlq, m.messageId())));
      out.flush();
      return;
    }
    if (output.isDocument()) {
      ObjectNode doc = Json.object();
      doc.put("queue", dlq.name());
      doc.put("vhost", broker.vhost);
      doc.put("dryRun", dryRun);
      ArrayNode items = doc.putArray("replayed");
      for (Replayer.Moved m : result.moved()) {
        items.addObject().put("messageId", m.messageId()).put("instance", m.instance()).put("step", m.step())
            .put("exchange", m.target().exchange()).put("routingKey", m.target().routingKey());
      }
      doc.put("left", result.left());
      Documents.print(out, output.format(), doc);
      return;
    }
    if (result.moved().isEmpty()) {
      out.println(dlq.name() + ": nothing to replay" + (result.left() == 0 ? " (the queue is empty)." : "."));
      out.flush();
      return;
    }
    Table t = new Table("MESSAGE ID", "INSTANCE", "STEP", "TO");
    result.moved().forEach(m -> t.row(m.messageId(), m.instance(), m.step(), m.target().describe()));
    t.print(out);
    out.println();
    int n = result.moved().size();
    out.println((dryRun ? "Would replay " : "Replayed ") + n + " message" + (n == 1 ? "" : "s") + " from " + dlq.name()
        + (dryRun ? " (--dry-run: nothing moved)" : " with baton-retries reset to 0") + "; " + result.left()
        + " left in the queue.");
    out.flush();
  }
}
