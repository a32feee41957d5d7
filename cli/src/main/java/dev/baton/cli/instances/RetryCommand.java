package dev.baton.cli.instances;

import dev.baton.cli.support.ExitCodes;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.InstanceDocument;
import picocli.CommandLine.Command;

/** {@code baton retry <id>}. */
@Command(name = "retry", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Retries a FAILED instance from the execution that failed: that step (or compensation) is sent"
        + " again as a new attempt and the instance carries on from there."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
public final class RetryCommand extends InstanceAction {

  @Override
  String path(String id) {
    return ApiPaths.retry(id);
  }

  @Override
  String done(InstanceDocument i) {
    return Instances.summary(i) + i.status() + ", " + Instances.step(i) + " sent again as attempt " + i.attempt();
  }
}
