package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code baton dev} refuses to start with one line saying what to do, and never prints a password. The checks that
 * need the real broker (its management API answering) are in {@link DevCommandPreflightIT}.
 */
class DevCommandTest {

  static final String SECRET = "s3cret-never-printed";

  record Run(int exitCode, String err) {}

  static Run baton(String... args) {
    CommandLine cli = BatonCli.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new Run(code, err.toString());
  }

  @Test
  void aTakenPortIsNamedWithTheFlagToChangeIt() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Run run = baton("dev", "--kube-port", String.valueOf(taken.getLocalPort()), "--rabbitmq-password", SECRET);
      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.err().strip().lines()).hasSize(1);
      assertThat(run.err()).contains("port " + taken.getLocalPort(), "already in use", "--kube-port")
          .doesNotContain(SECRET);
    }
  }

  @Test
  void anUnreachableBrokerSaysHowToStartIt() {
    Run run = baton("dev", "--kube-port", "0", "--http-port", "0", "--rabbitmq-management-url",
        "http://127.0.0.1:1/api/", "--rabbitmq-password", SECRET);
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("RabbitMQ management API is not reachable at http://127.0.0.1:1/api/",
        "rabbitmq-plugins enable rabbitmq_management", "--rabbitmq-management-url").doesNotContain(SECRET);
  }

  @Test
  void exampleWorkersRunUnlessSwitchedOff() {
    DevCommand on = new DevCommand();
    new CommandLine(on).parseArgs();
    assertThat(on.settings().exampleWorkers()).isTrue();
    DevCommand off = new DevCommand();
    new CommandLine(off).parseArgs("--no-example-workers");
    assertThat(off.settings().exampleWorkers()).isFalse();
  }

  @Test
  void settingsNeverShowPasswords() {
    DevCommand dev = new DevCommand();
    new CommandLine(dev).parseArgs("--rabbitmq-password", SECRET, "--database-password", SECRET, "--vhost", "/");
    DevSettings settings = dev.settings();
    assertThat(settings.toString()).doesNotContain(SECRET).contains("vhost=/");
    assertThat(settings.operator(null).toString()).doesNotContain(SECRET);
    assertThat(settings.runtime().toString()).doesNotContain(SECRET);
    assertThat(settings.amqpUri()).endsWith("@127.0.0.1:5672/%2F");
    assertThat(settings.operator(null).serverSideApply()).isFalse();
    assertThat(settings.runtime().createDatabase()).isTrue();
  }

  @Test
  void theOperatorDeclaresOverAmqpWhereTheRuntimeConnects() {
    DevCommand dev = new DevCommand();
    new CommandLine(dev).parseArgs("--rabbitmq-host", "rabbit.local", "--rabbitmq-port", "5673");
    assertThat(dev.settings().operator(null).declarationUrl()).isEqualTo("amqp://rabbit.local:5673");
  }
}
