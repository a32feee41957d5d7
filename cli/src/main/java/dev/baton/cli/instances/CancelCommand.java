package dev.baton.cli.instances;

import dev.baton.cli.support.ExitCodes;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.CancelRequest;
import dev.baton.httpapi.InstanceDocument;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code baton cancel <id>}. */
@Command(name = "cancel", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Cancels a RUNNING or COMPENSATING instance: the steps in flight are abandoned (a late answer is"
        + " recorded on the step and ignored) and commands not yet sent are withdrawn. With --compensate, the"
        + " completed steps (and those whose outcome is unknown) are undone first; the instance ends CANCELLED."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
public final class CancelCommand extends InstanceAction {

  @Option(names = "--compensate", description = "Undo the completed and unknown-outcome steps before ending.")
  boolean compensate;

  @Override
  CancelRequest body() {
    return new CancelRequest(compensate);
  }

  @Override
  String path(String id) {
    return ApiPaths.cancel(id);
  }

  @Override
  String done(InstanceDocument i) {
    return Instances.summary(i) + i.status() + " at " + Instances.step(i);
  }
}
