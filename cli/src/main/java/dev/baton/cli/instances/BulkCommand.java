package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.cli.support.CliException;
import dev.baton.cli.support.ExitCodes;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.OperationDocument;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton bulk cancel|retry|signal [<workflow>] [filters]}: a bulk operation ({@code POST /api/v1/operations}).
 * It says how many instances the filter finds and asks before going on (unless {@code --yes}), then shows the
 * operation's progress until it is done (unless {@code --no-wait}: the operation goes on in the runtime anyway).
 */
@Command(name = "bulk", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Cancels, retries or signals every instance a search finds, as one stored operation that carries"
        + " on after a runtime restart; shows how many it matched and its progress."},
    footer = {"%nExamples:",
        "  baton bulk retry order-fulfilment --status FAILED --step charge --error-code PROVIDER_DOWN --since 6h",
        "  baton bulk cancel --key-prefix bad-deploy- --compensate --yes",
        "  baton bulk signal order-approval --status RUNNING --signal approve -d '{\"by\": \"ops\"}'"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_BULK_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE,
        ExitCodes.HELP_SOME_REFUSED, ExitCodes.HELP_NOT_CONFIRMED})
public final class BulkCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "cancel|retry|signal", description = "The action on each instance.")
  String action;

  @Parameters(index = "1", arity = "0..1", paramLabel = "<workflow>", description = "Only instances of this Workflow.")
  String workflow;

  @Mixin SearchFilters filters;

  @Option(names = "--compensate", description = "cancel: undo each instance's completed steps first.")
  boolean compensate;

  @Option(names = "--signal", paramLabel = "NAME", description = "signal: the signal's name.")
  String signal;

  @Option(names = {"-d", "--data"}, paramLabel = "JSON", description = "signal: its body (JSON, @file or @-).")
  String data;

  @Option(names = {"-y", "--yes"}, description = "Do not ask before going on.")
  boolean yes;

  @Option(names = "--no-wait", description = "Return once the operation is created; it goes on in the runtime.")
  boolean noWait;

  @Mixin NamespaceOption namespace;
  @Mixin RuntimeOptions runtime;
  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (!Map.of("cancel", 1, "retry", 1, "signal", 1).containsKey(action)) {
      throw new ParameterException(spec.commandLine(), "the action is cancel, retry or signal, not '" + action + "'");
    }
    RuntimeClient client = runtime.client();
    ObjectNode body = body();
    PrintWriter err = spec.commandLine().getErr();
    OperationDocument count = client.post(ApiPaths.OPERATIONS, body.deepCopy().put("dryRun", true),
        OperationDocument.class);
    String what = action + " " + String.format(Locale.ROOT, "%,d", count.matched()) + " instance"
        + (count.matched() == 1 ? "" : "s") + " (" + count.filter() + ")";
    if (count.matched() == 0) {
      err.println("No instances match: nothing to " + action + ".");
      err.flush();
      return ExitCodes.OK;
    }
    if (!yes && !confirmed(what, err)) {
      err.println("Nothing done.");
      err.flush();
      return ExitCodes.NOT_CONFIRMED;
    }
    OperationDocument op = client.post(ApiPaths.OPERATIONS, body, OperationDocument.class);
    PrintWriter out = spec.commandLine().getOut();
    out.println("Operation " + op.id() + ": " + what);
    out.flush();
    if (noWait) {
      return ExitCodes.OK;
    }
    while (!op.finished()) {
      progress(err, op, false);
      Thread.sleep(Duration.ofMillis(500).toMillis());
      op = client.get(ApiPaths.operation(op.id()), OperationDocument.class);
    }
    progress(err, op, true);
    if (op.failed() > 0) {
      err.println(op.failed() + " refused; the last: " + op.lastFailure());
      err.flush();
      return ExitCodes.SOME_REFUSED;
    }
    return ExitCodes.OK;
  }

  ObjectNode body() {
    if (action.equals("signal") && signal == null) {
      throw new ParameterException(spec.commandLine(), "bulk signal needs --signal NAME");
    }
    if (!action.equals("signal") && (signal != null || data != null)) {
      throw new ParameterException(spec.commandLine(), "--signal and --data belong to bulk signal");
    }
    if (compensate && !action.equals("cancel")) {
      throw new ParameterException(spec.commandLine(), "--compensate belongs to bulk cancel");
    }
    Map<String, String> fields = filters.fields(namespace.namespace(), workflow, Instant.now(), spec);
    ObjectNode body = Json.object().put("action", action);
    body.set("filter", Json.MAPPER.valueToTree(fields));
    if (compensate) {
      body.put("compensate", true);
    }
    if (signal != null) {
      body.put("signal", signal);
      if (data != null) {
        body.set("body", JsonArgument.parse(spec, "--data", data));
      }
    }
    return body;
  }

  private boolean confirmed(String what, PrintWriter err) throws IOException {
    err.print(what.substring(0, 1).toUpperCase(Locale.ROOT) + what.substring(1) + "? [y/N] ");
    err.flush();
    String answer = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    if (answer == null) {
      throw new CliException(ExitCodes.NOT_CONFIRMED, "no answer on stdin: pass --yes to go on without asking");
    }
    return answer.trim().equalsIgnoreCase("y") || answer.trim().equalsIgnoreCase("yes");
  }

  /** {@code [##########----------] 1,500/3,000 done, 2 refused}, on one line that each update rewrites. */
  static String bar(OperationDocument op) {
    long total = Math.max(1, op.matched());
    long acted = op.done() + op.failed();
    int filled = (int) Math.min(20, acted * 20 / total);
    return "[" + "#".repeat(filled) + "-".repeat(20 - filled) + "] " + String.format(Locale.ROOT, "%,d/%,d", acted,
        op.matched()) + " done" + (op.failed() > 0 ? ", " + op.failed() + " refused" : "");
  }

  private static void progress(PrintWriter err, OperationDocument op, boolean last) {
    err.print("\r" + bar(op) + (last ? System.lineSeparator() : ""));
    err.flush();
  }
}
