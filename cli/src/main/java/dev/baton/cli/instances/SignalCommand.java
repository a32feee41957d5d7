package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import dev.baton.cli.support.ExitCodes;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.InstanceDocument;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code baton signal <id> <signal> [-d JSON|@file]}. */
@Command(name = "signal", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Sends a signal to an instance: it is stored, in order, and a wait step for that signal consumes"
        + " it (now, or when it starts); the wait's output is the signal's data.",
        "  baton signal 6c423aa4-edb5-458a-ae79-7d30b70d4651 approve -d '{\"by\": \"ann\"}'"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
public final class SignalCommand extends InstanceAction {

  @Parameters(index = "1", paramLabel = "<signal>", description = "The signal's name, e.g. approve.")
  String signal;

  @Option(names = {"-d", "--data"}, paramLabel = "JSON|@file",
      description = "The signal's body: any JSON value, @file to read it from a file, @- from stdin. Default {}.")
  String data;

  @Override
  JsonNode body() {
    return data == null ? Json.object() : JsonArgument.parse(spec, "--data", data);
  }

  @Override
  String path(String id) {
    return ApiPaths.signal(id, signal);
  }

  @Override
  String done(InstanceDocument i) {
    return "signal " + signal + " stored for " + Instances.summary(i) + i.status() + " at " + Instances.step(i);
  }
}
