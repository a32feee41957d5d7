package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.Json;
import picocli.CommandLine.Command;

/** {@code baton cancel <id>}. */
@Command(name = "cancel", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Cancels a RUNNING or COMPENSATING instance: the step in flight is abandoned (a late answer is"
        + " ignored) and nothing is compensated."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
public final class CancelCommand extends InstanceAction {

  @Override
  String action() {
    return "cancel";
  }

  @Override
  String done(JsonNode i) {
    return "instance " + Json.text(i, "id") + " (" + Json.text(i, "workflow") + ", business key "
        + Json.text(i, "businessKey") + "): " + Json.text(i, "status") + " at " + Instances.step(i);
  }
}
