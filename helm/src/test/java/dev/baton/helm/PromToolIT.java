package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's PrometheusRule as Prometheus itself reads it: its rule groups, rendered with the default values, pass
 * {@code promtool check rules}, and {@code promtool test rules} runs the unit tests in
 * {@code src/test/resources/promtool/alerts-test.yaml} against them (input series, the alerts expected at given times).
 *
 * <p>promtool comes from Debian's {@code prometheus} package; {@code .ci/run} (ensure_promtool) unpacks it without
 * installing a Prometheus server. It is looked up as {@code -Dbaton.promtool=<path>}, else on the PATH. Missing, the
 * tests fail, so that CI never passes without them; {@code -Dbaton.promtool.skip=true} skips them instead.
 */
class PromToolIT {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static Path promtool;

  @BeforeAll
  static void findPromtool() {
    Optional<Path> found = locate();
    if (found.isEmpty() && Boolean.getBoolean("baton.promtool.skip")) {
      Assumptions.abort("promtool not found, skipped as -Dbaton.promtool.skip=true asks");
    }
    promtool = found.orElseThrow(() -> new AssertionError("promtool not found (-Dbaton.promtool, else the PATH): "
        + "the PrometheusRule is tested with it. .ci/run provides it (ensure_promtool unpacks Debian's prometheus "
        + "package: apt-get download prometheus && dpkg-deb -x prometheus_*.deb DIR, then DIR/usr/bin/promtool); "
        + "point -Dbaton.promtool at it, or pass -Dbaton.promtool.skip=true to skip these tests."));
  }

  @Test
  void theRulesPassPromtoolCheck(@TempDir Path dir) throws Exception {
    Path rules = renderRules(dir);
    String out = run(dir, promtool.toString(), "check", "rules", rules.toString());
    assertThat(out).contains("SUCCESS");
  }

  @Test
  void theAlertsFireWhenAndOnlyWhenTheUnitTestsSay(@TempDir Path dir) throws Exception {
    renderRules(dir);
    Path tests = dir.resolve("alerts-test.yaml");
    Files.copy(Chart.repoRoot().resolve("helm/src/test/resources/promtool/alerts-test.yaml"), tests);
    run(dir, promtool.toString(), "test", "rules", tests.toString());
  }

  /** The PrometheusRule's spec ({@code groups: [...]}), which is a Prometheus rule file, as dir/rules.yaml. */
  private static Path renderRules(Path dir) throws IOException {
    GenericKubernetesResource rule = Chart.template(ValueSet.DEFAULTS, Map.of("metrics.prometheusRule.enabled", true))
        .generic("PrometheusRule").get(0);
    Object spec = rule.getAdditionalProperties().get("spec");
    assertThat(YAML.valueToTree(spec).path("groups")).as("the PrometheusRule's groups").isNotEmpty();
    Path file = dir.resolve("rules.yaml");
    YAML.writeValue(file.toFile(), spec);
    return file;
  }

  /** Runs the command in dir; its output (stdout and stderr) is the failure message when it exits non-zero. */
  private static String run(Path dir, String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    byte[] output;
    try (var in = process.getInputStream()) {
      output = in.readAllBytes();
    }
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s finished", List.of(command)).isTrue();
    String out = new String(output, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as("%s said:%n%s", String.join(" ", command), out).isZero();
    return out;
  }

  private static Optional<Path> locate() {
    String property = System.getProperty("baton.promtool");
    if (property != null && !property.isBlank()) {
      Path path = Path.of(property);
      if (!Files.isExecutable(path)) {
        throw new AssertionError("-Dbaton.promtool=" + property + " is not an executable file");
      }
      return Optional.of(path);
    }
    String pathVar = Optional.ofNullable(System.getenv("PATH")).orElse("");
    return Stream.of(pathVar.split(File.pathSeparator)).filter(d -> !d.isBlank())
        .map(d -> Path.of(d, "promtool")).filter(Files::isExecutable).findFirst();
  }
}
