package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.Json;
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
  JsonNode body() {
    return compensate ? Json.MAPPER.createObjectNode().put("compensate", true) : null;
  }

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
