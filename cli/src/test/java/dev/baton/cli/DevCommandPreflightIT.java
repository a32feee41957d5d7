package dev.baton.cli;

import static dev.baton.cli.DevCommandTest.SECRET;
import static dev.baton.cli.DevCommandTest.baton;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.DevCommandTest.Run;
import org.junit.jupiter.api.Test;

/**
 * {@code baton dev}'s preflight against the real RabbitMQ on localhost: it gets past the management API's check, so
 * what is wrong next (credentials, the database) is named with the flag that fixes it, and no password is printed.
 */
class DevCommandPreflightIT {

  @Test
  void wrongBrokerCredentialsNameTheUserButNotThePassword() {
    Run run = baton("dev", "--kube-port", "0", "--http-port", "0", "--rabbitmq-password", SECRET);
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("refused user 'guest'", "--rabbitmq-password").doesNotContain(SECRET);
  }

  @Test
  void anUnreachableDatabaseSaysWhichFlagPointsAtIt() {
    Run run = baton("dev", "--kube-port", "0", "--http-port", "0", "--database-url",
        "jdbc:postgresql://127.0.0.1:1/baton");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("PostgreSQL is not reachable at 127.0.0.1:1", "--database-url");
  }
}
