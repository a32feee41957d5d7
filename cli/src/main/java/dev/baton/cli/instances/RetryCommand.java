package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.Json;
import picocli.CommandLine.Command;

/** {@code baton retry <id>}. */
@Command(name = "retry", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Retries a FAILED instance from the execution that failed: that step (or compensation) is sent"
        + " again as a new attempt and the instance carries on from there."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
public final class RetryCommand extends InstanceAction {

  @Override
  String action() {
    return "retry";
  }

  @Override
  String done(JsonNode i) {
    return "instance " + Json.text(i, "id") + " (" + Json.text(i, "workflow") + ", business key "
        + Json.text(i, "businessKey") + "): " + Json.text(i, "status") + ", " + Instances.step(i) + " sent again"
        + " as attempt " + Json.text(i, "attempt");
  }
}
