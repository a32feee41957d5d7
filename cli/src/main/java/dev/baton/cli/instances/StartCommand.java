package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.cli.support.Documents;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.OutputOptions;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.StartRequest;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton start <workflow> --business-key K [--input JSON|@file]}, or {@code --from-file F} for many. */
@Command(name = "start", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Starts an instance of a workflow. Idempotent: a business key already started returns that"
        + " instance instead of starting another."},
    footer = {"%nExamples:",
        "  baton start order-fulfilment -k order-1 -i '{\"sku\": \"book\", \"amount\": 42}'",
        "  baton start order-fulfilment -k order-2 --input @order.json -o json",
        "  baton start order-fulfilment --from-file orders.jsonl   # one {\"businessKey\": ..., \"input\": {...}} per line",
        "  baton start order-fulfilment -k order-3 --wait=2m      # exits 0 once it SUCCEEDED (see Exit codes)"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_WAIT_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE,
        ExitCodes.HELP_FAILED, ExitCodes.HELP_COMPENSATED, ExitCodes.HELP_CANCELLED, ExitCodes.HELP_STILL_RUNNING})
public final class StartCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<workflow>", description = "The Workflow, e.g. order-fulfilment.")
  String workflow;

  @Option(names = {"-k", "--business-key"}, paramLabel = "KEY",
      description = "Names the run (e.g. the order id); starting the same key again returns the first instance.")
  String businessKey;

  @Option(names = {"-i", "--input"}, paramLabel = "JSON|@file",
      description = "The instance input: a JSON object, @file to read it from a file, @- from stdin. Default {}.")
  String input;

  @Option(names = "--from-file", paramLabel = "FILE",
      description = "Start many: JSON lines, one {\"businessKey\": \"...\", \"input\": {...}} per line (- for stdin),"
          + " sent in batches of " + StartBatches.BATCH + " (one transaction each). Every line is checked before any"
          + " is sent.")
  String fromFile;

  @Mixin WaitOption waitFor;
  @Mixin NamespaceOption namespace;
  @Mixin RuntimeOptions runtime;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (fromFile != null) {
      if (waitFor.asked()) {
        throw new ParameterException(spec.commandLine(), "--wait waits for one instance: leave it out with"
            + " --from-file (then: baton get instance <id> --wait)");
      }
      if (businessKey != null || input != null) {
        throw new ParameterException(spec.commandLine(), "--from-file takes the business keys and inputs from the file:"
            + " leave out --business-key and --input");
      }
      return new StartBatches(spec, runtime.client(), output, ApiPaths.batch(namespace.namespace(), workflow))
          .run(StartBatches.read(spec, fromFile));
    }
    if (businessKey == null) {
      throw new ParameterException(spec.commandLine(), "Missing required option: '--business-key=KEY'"
          + " (or --from-file FILE to start many)");
    }
    StartRequest request = new StartRequest(businessKey, input());
    RuntimeClient.Response<InstanceDocument> r = runtime.client()
        .postWithStatus(ApiPaths.instances(namespace.namespace(), workflow), request, InstanceDocument.class);
    var out = spec.commandLine().getOut();
    InstanceDocument i = r.body();
    if (output.isName()) { // instance/<id>, once started (and, with --wait, once ended)
      InstanceDocument shown = waitFor.asked() ? InstanceWait.until(runtime.client(), i, waitFor.wait) : i;
      out.println(InstanceRows.name(shown));
      out.flush();
      return waitFor.asked() ? InstanceWait.exitCode(shown, waitFor.wait, "start", spec.commandLine().getErr())
          : ExitCodes.OK;
    }
    if (output.isDocument()) {
      if (waitFor.asked()) { // one document, the instance as it ended (or as it was when the wait was over)
        InstanceDocument ended = InstanceWait.until(runtime.client(), i, waitFor.wait);
        Documents.print(out, output.format(), ended);
        return InstanceWait.exitCode(ended, waitFor.wait, "start", spec.commandLine().getErr());
      }
      Documents.print(out, output.format(), i);
      return ExitCodes.OK;
    }
    out.println(r.status() == 201
        ? "started " + namespace.namespace() + "/" + workflow + " instance " + i.id() + " (business key "
            + businessKey + "): " + i.status() + " at " + Instances.step(i)
        : "business key " + businessKey + " was already started: instance " + i.id() + " is " + i.status()
            + " (nothing new started)");
    out.println("  baton describe " + i.id());
    out.flush();
    if (!waitFor.asked()) {
      return ExitCodes.OK;
    }
    InstanceDocument ended = InstanceWait.until(runtime.client(), i, waitFor.wait);
    out.println(Instances.outcome(ended, Instant.now()));
    out.flush();
    return InstanceWait.exitCode(ended, waitFor.wait, "start", spec.commandLine().getErr());
  }

  private ObjectNode input() {
    return input == null ? Json.object() : JsonArgument.object(spec, "--input", input);
  }
}
