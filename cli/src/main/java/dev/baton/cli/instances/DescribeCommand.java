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

  @Parameters(index = "0", paramLabel = "<id>", description = "The instance id (what start printed).")
  String id;

  @Mixin RuntimeOptions runtime;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    InstanceDocument i = runtime.client().get(ApiPaths.instance(id), InstanceDocument.class);
    if (output.isTable()) {
      Instances.describe(spec.commandLine().getOut(), i, Instant.now());
    } else {
      Documents.print(spec.commandLine().getOut(), output.format(), i);
    }
    return ExitCodes.OK;
  }
}
