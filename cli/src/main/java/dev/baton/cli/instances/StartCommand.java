package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.cli.support.Documents;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.OutputOptions;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.StartRequest;
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
        "  baton start order-fulfilment --from-file orders.jsonl   # one {\"businessKey\": ..., \"input\": {...}} per line"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
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

  @Mixin NamespaceOption namespace;
  @Mixin RuntimeOptions runtime;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (fromFile != null) {
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
    if (!output.isTable()) {
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
    return ExitCodes.OK;
  }

  private ObjectNode input() {
    return input == null ? Json.object() : JsonArgument.object(spec, "--input", input);
  }
}
