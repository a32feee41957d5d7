package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.LintResult;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code helm lint --strict} passes with the defaults and with every value set. */
class ChartLintTest {

  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void lintsCleanly(ValueSet values, @TempDir Path scratch) {
    LintResult result = Chart.lint(values, scratch);

    assertThat(result.isFailed()).as("helm lint --strict with %s: %s", values, result.getMessages()).isFalse();
    assertThat(result.getMessages()).as("lint messages with %s", values)
        .noneMatch(m -> m.contains("[ERROR]") || m.contains("[WARNING]"));
  }
}
