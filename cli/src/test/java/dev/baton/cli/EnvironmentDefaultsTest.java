package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The {@code BATON_*} defaults of the CLI's options are read like every other Baton process reads its settings: the
 * same values, the same one-line errors, every bad variable at once (no broker or runtime needed: they fail first).
 */
class EnvironmentDefaultsTest {

  static DevCommand dev(Map<String, String> env, String... args) {
    CommandLine cli = BatonCli.commandLine(env);
    String[] all = new String[args.length + 1];
    all[0] = "dev";
    System.arraycopy(args, 0, all, 1, args.length);
    cli.parseArgs(all);
    return cli.getSubcommands().get("dev").getCommand();
  }

  @Test
  void aBadVariableFailsWithTheSameLineAsInTheRuntime() {
    CliRun run = CliRun.baton(Map.of("BATON_HTTP_PORT", "eighty"), "dev");
    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).isEqualTo(
        "baton dev: BATON_HTTP_PORT: expected a whole number from 0 to 65535, got 'eighty'" + System.lineSeparator());
  }

  @Test
  void everyBadVariableOfTheCommandIsNamedAtOnce() {
    CliRun run = CliRun.baton(Map.of(
        "BATON_KUBE_PORT", "x",
        "BATON_RESYNC", "1 minute",
        "BATON_EXAMPLE_WORKERS", "maybe",
        "BATON_RABBITMQ_PORT", "0",
        "BATON_RABBITMQ_MANAGEMENT_URL", "127.0.0.1:15672"), "dev");
    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err().strip()).startsWith("baton dev: ").contains(
        "BATON_KUBE_PORT: expected a whole number from 0 to 65535, got 'x'",
        "BATON_RESYNC: expected a duration such as 30s, got '1 minute'",
        "BATON_EXAMPLE_WORKERS: expected true or false (or yes/no, 1/0), got 'maybe'",
        "BATON_RABBITMQ_PORT: expected a whole number from 1 to 65535, got '0'",
        "BATON_RABBITMQ_MANAGEMENT_URL: expected a URI with scheme http or https and a host, got '127.0.0.1:15672'")
        .doesNotContain("Usage:");
  }

  @Test
  void theCommandsOverTheRuntimeReadTheirVariablesTheSameWay() {
    CliRun run = CliRun.baton(Map.of("BATON_RUNTIME_URL", "ftp://runtime"), "get");
    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err().strip()).isEqualTo(
        "baton get: BATON_RUNTIME_URL: expected a URI with scheme http or https and a host, got 'ftp://runtime'");
  }

  @Test
  void variablesAreTheDefaultsAndFlagsWin(@TempDir Path dir) throws Exception {
    Path password = Files.writeString(dir.resolve("password"), "s3cret\n");
    Map<String, String> env = Map.of(
        "BATON_EXAMPLE_WORKERS", "no",
        "BATON_RESYNC", "2m",
        "BATON_HTTP_PORT", " 9090 ",
        "BATON_DATABASE_USERNAME", "baton",
        "BATON_RABBITMQ_PASSWORD_FILE", password.toString());
    DevSettings fromEnv = dev(env).settings();
    assertThat(fromEnv.exampleWorkers()).isFalse();
    assertThat(fromEnv.resync()).isEqualTo(Duration.ofMinutes(2));
    assertThat(fromEnv.httpPort()).isEqualTo(9090);
    assertThat(fromEnv.databaseUsername()).isEqualTo("baton");
    assertThat(fromEnv.rabbitPassword()).isEqualTo("s3cret");

    DevSettings flags = dev(env, "--example-workers", "--resync", "30s", "--http-port", "0").settings();
    assertThat(flags.exampleWorkers()).isTrue();
    assertThat(flags.resync()).isEqualTo(Duration.ofSeconds(30));
    assertThat(flags.httpPort()).isZero();

    assertThat(dev(Map.of()).settings().exampleWorkers()).isTrue();
    assertThat(dev(Map.of("BATON_EXAMPLE_WORKERS", "TRUE"), "--no-example-workers").settings().exampleWorkers())
        .isFalse();
  }

  @Test
  void theExampleWorkersLanguageIsJavaUnlessTheFlagOrItsVariableSaysOtherwise() {
    assertThat(dev(Map.of()).settings().workers()).isEqualTo(WorkerLanguage.JAVA);
    assertThat(dev(Map.of("BATON_DEV_WORKERS", "python")).settings().workers()).isEqualTo(WorkerLanguage.PYTHON);
    assertThat(dev(Map.of("BATON_DEV_WORKERS", "python"), "--workers", "typescript").settings().workers())
        .isEqualTo(WorkerLanguage.TYPESCRIPT);
    CliRun run = CliRun.baton(Map.of(), "dev", "--workers", "cobol");
    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("expected java, python or typescript, got 'cobol'");
  }

  @Test
  void helpListsEachOptionsVariableAndNeverASecret() {
    CliRun run = CliRun.baton(Map.of("BATON_RABBITMQ_PASSWORD", "s3cret-in-env", "BATON_HTTP_PORT", "9090"),
        "dev", "--help");
    assertThat(run.code()).isZero();
    assertThat(run.out()).containsOnlyOnce(
        "Environment (sets the default of the option; X_FILE: a file holding X):")
        .containsPattern("BATON_HTTP_PORT +--http-port")
        .containsPattern("BATON_RABBITMQ_PASSWORD or _FILE +--rabbitmq-password")
        .containsPattern("BATON_DATABASE_USERNAME +--database-username")
        .contains("Default: 9090")
        .doesNotContain("s3cret-in-env");
    assertThat(CliRun.baton(Map.of(), "get", "--help").out()).containsPattern("BATON_RUNTIME_URL +--runtime-url")
        .containsPattern("BATON_NAMESPACE +--namespace");
  }
}
