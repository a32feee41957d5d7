package dev.baton.cli.instances;

import dev.baton.cli.support.Documents;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.OutputOptions;
import dev.baton.httpapi.InstanceDocument;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cancel}, {@code retry} and {@code signal}: a POST on one instance, then the instance as it is now. */
abstract class InstanceAction implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<id>", description = "The instance id (or instance/<id>, as -o name prints"
      + " it).")
  String id;

  @Mixin RuntimeOptions runtime;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  /** The path of the action on instance {@code id} ({@link dev.baton.httpapi.ApiPaths}). */
  abstract String path(String id);

  /** One line on what happened, for the table output. */
  abstract String done(InstanceDocument instance);

  /** The request's body; none by default. */
  Object body() {
    return null;
  }

  @Override
  public Integer call() {
    Object body = body();
    InstanceDocument i = runtime.client().post(path(InstanceRows.id(id)), body, InstanceDocument.class);
    var out = spec.commandLine().getOut();
    if (output.isDocument()) {
      Documents.print(out, output.format(), i);
    } else {
      out.println(output.isName() ? InstanceRows.name(i) : done(i));
      out.flush();
    }
    return ExitCodes.OK;
  }
}
