package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.Json;
import dev.baton.cli.support.OutputOptions;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cancel} and {@code retry}: a POST on one instance, then the instance as it is now. */
abstract class InstanceAction implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<id>", description = "The instance id.")
  String id;

  @Mixin RuntimeOptions runtime;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  /** {@code cancel} or {@code retry}: the last segment of the path. */
  abstract String action();

  /** One line on what happened, for the table output. */
  abstract String done(JsonNode instance);

  /** The request's body; none by default. */
  JsonNode body() {
    return null;
  }

  @Override
  public Integer call() {
    JsonNode i = runtime.client().post(Instances.path(id) + "/" + action(), body()).body();
    var out = spec.commandLine().getOut();
    if (output.isTable()) {
      out.println(done(i));
      out.flush();
    } else {
      Json.print(out, output.format(), i);
    }
    return ExitCodes.OK;
  }
}
