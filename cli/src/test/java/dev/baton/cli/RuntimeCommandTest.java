package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.runtime.app.RuntimeSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code baton runtime}: the database and broker of {@code baton dev} by default, the other settings from BATON_*. */
class RuntimeCommandTest {

  static RuntimeSettings settings(Map<String, String> env, String... args) {
    RuntimeCommand command = new RuntimeCommand();
    CommandLine cli = new CommandLine(command).setDefaultValueProvider(new dev.baton.cli.support.EnvironmentDefaults(env));
    cli.parseArgs(args);
    command.spec = cli.getCommandSpec();
    return command.settings(env);
  }

  @Test
  void theDefaultsOfBatonDev() {
    RuntimeSettings s = settings(Map.of());
    DevCommand dev = new DevCommand();
    new CommandLine(dev).parseArgs();
    assertThat(s.databaseUrl()).isEqualTo(dev.settings().databaseUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/baton");
    assertThat(s.amqpUri()).isEqualTo(dev.settings().amqpUri()).isEqualTo("amqp://guest:guest@127.0.0.1:5672/%2F");
    assertThat(s.httpPort()).isEqualTo(8080);
  }

  @Test
  void flagsAndTheRuntimesOwnVariables() {
    Map<String, String> env = Map.of("BATON_RABBITMQ_URI", "amqp://rt:pw@10.0.0.9:5673/prod",
        "BATON_OUTBOX_POLL_INTERVAL", "250ms", "BATON_HTTP_PORT", "9090");
    RuntimeSettings fromEnv = settings(env);
    assertThat(fromEnv.amqpUri()).isEqualTo("amqp://rt:pw@10.0.0.9:5673/prod");
    assertThat(fromEnv.outboxPollInterval()).hasMillis(250);
    assertThat(fromEnv.httpPort()).isEqualTo(9090);

    RuntimeSettings flags = settings(env, "--http-port", "8181", "--rabbitmq-port", "5999", "--database-url",
        "jdbc:postgresql://db:5432/other");
    assertThat(flags.amqpUri()).isEqualTo("amqp://guest:guest@127.0.0.1:5999/%2F");
    assertThat(flags.httpPort()).isEqualTo(8181);
    assertThat(flags.databaseUrl()).isEqualTo("jdbc:postgresql://db:5432/other");
  }

  @Test
  void listedInTheHelp() {
    java.io.StringWriter out = new java.io.StringWriter();
    CommandLine cli = BatonCli.commandLine(Map.of());
    cli.setOut(new java.io.PrintWriter(out, true));
    cli.execute("runtime", "--help");
    assertThat(out.toString()).contains("--http-port", "--database-url", "--rabbitmq-host", "until SIGTERM");
  }
}
