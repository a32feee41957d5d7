package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code baton dev --api-token}: the runtime requires it, the operator sends it; without it the local API is open. */
class DevApiTokenTest {

  private static DevSettings settings(String... args) {
    DevCommand command = new DevCommand();
    new CommandLine(command).parseArgs(args);
    return command.settings();
  }

  @Test
  void withoutATokenTheLocalApiIsOpen() {
    DevSettings s = settings();
    assertThat(s.runtime().apiToken()).isNull();
    assertThat(s.operator("http://127.0.0.1:8080").runtimeToken()).isNull();
  }

  @Test
  void aTokenIsRequiredByTheRuntimeAndSentByTheOperatorButNeverPrinted() {
    DevSettings s = settings("--api-token", "s3cret-token");
    assertThat(s.runtime().apiToken()).isEqualTo("s3cret-token");
    assertThat(s.operator("http://127.0.0.1:8080").runtimeToken()).isEqualTo("s3cret-token");
    assertThat(s.toString()).doesNotContain("s3cret-token").contains("apiToken=(set)");
    assertThat(s.runtime().toString()).doesNotContain("s3cret-token");
    assertThat(s.operator("http://127.0.0.1:8080").toString()).doesNotContain("s3cret-token");
  }
}
