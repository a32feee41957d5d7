package dev.baton.cli.instances;

import dev.baton.cli.support.Documents;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.OutputOptions;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.InstanceDocument;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton describe <id>}: where an instance is, since when, why it failed, and every dispatch so far. */
@Command(name = "describe", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Shows one instance: which step it waits on, which attempt, since when, its last error, and the"
        + " timeline of every step attempt with its kind and enclosing step (compensations included, marked)."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
public final class DescribeCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<id>", description = "The instance id (what start printed),"
      + " or instance/<id> as -o name prints it.")
  String id;

  @Mixin RuntimeOptions runtime;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    InstanceDocument i = runtime.client().get(ApiPaths.instance(InstanceRows.id(id)), InstanceDocument.class);
    var out = spec.commandLine().getOut();
    if (output.isDocument()) {
      Documents.print(out, output.format(), i);
    } else if (output.isName()) {
      out.println(InstanceRows.name(i));
      out.flush();
    } else { // -o wide is the same: describe shows every field already
      Instances.describe(out, i, Instant.now());
    }
    return ExitCodes.OK;
  }
}
