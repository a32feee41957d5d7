package dev.baton.cli.instances;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code baton search}: the options become the search's query, the times read against now. */
class SearchCommandTest {

  static final Instant NOW = Instant.parse("2026-12-05T12:00:00Z");

  static String path(String... args) {
    SearchCommand command = new SearchCommand();
    CommandLine cli = new CommandLine(command);
    cli.parseArgs(args);
    command.spec = cli.getCommandSpec();
    return command.query(NOW).path();
  }

  @Test
  void theFiltersOfAFailedStepBecomeTheQueryInTheDefaultNamespace() {
    assertThat(path("order-fulfilment", "--status", "FAILED", "--step", "charge", "--error-code", "CARD_DECLINED",
        "--since", "24h"))
        .isEqualTo("/api/v1/instances?namespace=default&workflow=order-fulfilment&status=FAILED&step=charge"
            + "&errorCode=CARD_DECLINED&createdAfter=2026-12-04T12%3A00%3A00Z&limit=50");
  }

  @Test
  void everyNamespaceAKeyPrefixAnRfc3339BoundAndACursor() {
    String cursor = new dev.baton.httpapi.InstanceQuery.Cursor(NOW, java.util.UUID.randomUUID()).encode();
    assertThat(path("-A", "--key-prefix", "order-4", "--until", "2026-12-01T00:00:00Z", "--limit", "5",
        "--cursor", cursor))
        .isEqualTo("/api/v1/instances?businessKeyPrefix=order-4&createdBefore=2026-12-01T00%3A00%3A00Z&limit=5"
            + "&cursor=" + cursor);
  }

  @Test
  void aWhenThatIsNeitherADurationNorATimeIsAUsageError() {
    assertThatThrownBy(() -> path("--since", "yesterday"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--since 'yesterday' is neither a duration (24h, 30m) nor an RFC 3339 time");
  }
}
