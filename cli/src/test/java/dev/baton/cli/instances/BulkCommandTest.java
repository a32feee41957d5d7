package dev.baton.cli.instances;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.httpapi.OperationDocument;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code baton bulk}: the operation's body from the options, and the progress bar. */
class BulkCommandTest {

  static String body(String... args) {
    BulkCommand command = new BulkCommand();
    CommandLine cli = new CommandLine(command);
    cli.parseArgs(args);
    command.spec = cli.getCommandSpec();
    return command.body().toString();
  }

  @Test
  void aRetryOfAStepsFailuresAndASignalWithItsBodyBecomeTheirOperations() {
    assertThat(body("retry", "order-fulfilment", "--status", "FAILED", "--error-code", "PROVIDER_DOWN"))
        .isEqualTo("{\"action\":\"retry\",\"filter\":{\"namespace\":\"default\",\"workflow\":\"order-fulfilment\","
            + "\"status\":\"FAILED\",\"errorCode\":\"PROVIDER_DOWN\"}}");
    assertThat(body("signal", "-A", "--key-prefix", "o-", "--signal", "approve", "-d", "{\"by\": \"ops\"}"))
        .isEqualTo("{\"action\":\"signal\",\"filter\":{\"businessKeyPrefix\":\"o-\"},\"signal\":\"approve\","
            + "\"body\":{\"by\":\"ops\"}}");
    assertThat(body("cancel", "-n", "shop", "--compensate"))
        .isEqualTo("{\"action\":\"cancel\",\"filter\":{\"namespace\":\"shop\"},\"compensate\":true}");
  }

  @Test
  void optionsOfAnotherActionAreUsageErrors() {
    assertThatThrownBy(() -> body("signal", "x")).hasMessageContaining("bulk signal needs --signal NAME");
    assertThatThrownBy(() -> body("retry", "--compensate")).hasMessageContaining("--compensate belongs to bulk cancel");
  }

  @Test
  void theBarFillsWithWhatWasActedOnAndSaysWhatWasRefused() {
    OperationDocument half = new OperationDocument("op", "retry", Map.of(), "RUNNING", 3000, 1498, 2, null, null, null,
        null);
    assertThat(BulkCommand.bar(half)).isEqualTo("[##########----------] 1,500/3,000 done, 2 refused");
  }
}
