package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.Json;
import dev.baton.cli.support.OutputOptions;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton signal <id> <signal> [-d JSON|@file]}. */
@Command(name = "signal", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Sends a signal to an instance: it is stored, in order, and a wait step for that signal consumes"
        + " it (now, or when it starts); the wait's output is the signal's data.",
        "  baton signal 6c423aa4-edb5-458a-ae79-7d30b70d4651 approve -d '{\"by\": \"ann\"}'"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
public final class SignalCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<id>", description = "The instance id.")
  String id;

  @Parameters(index = "1", paramLabel = "<signal>", description = "The signal's name, e.g. approve.")
  String signal;

  @Option(names = {"-d", "--data"}, paramLabel = "JSON|@file",
      description = "The signal's body: any JSON value, @file to read it from a file, @- from stdin. Default {}.")
  String data;

  @Mixin RuntimeOptions runtime;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    JsonNode body = data == null ? Json.object() : JsonArgument.parse(spec, "--data", data, false);
    JsonNode i = runtime.client()
        .post(Instances.path(id) + "/signals/" + RuntimeClient.encode(signal), body).body();
    var out = spec.commandLine().getOut();
    if (output.isTable()) {
      out.println("signal " + signal + " stored for instance " + Json.text(i, "id") + " (" + Json.text(i, "workflow")
          + ", business key " + Json.text(i, "businessKey") + "): " + Json.text(i, "status") + " at "
          + Instances.step(i));
      out.flush();
    } else {
      Json.print(out, output.format(), i);
    }
    return ExitCodes.OK;
  }
}
