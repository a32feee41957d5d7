package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Argo CD renders the chart with {@code helm template} at every refresh and applies what differs: a GitOps-safe
 * chart renders the same objects every time, in every mode. Nothing random is rendered and nothing is read back from
 * the cluster: the runtime's API token in token mode without runtime.apiToken.existingSecret is made by the operator
 * at its start (operator/.../runtime/RuntimeApiTokens.java), not by the chart.
 */
class GitOpsRenderTest {

  private static final Pattern LOOKUP = Pattern.compile("\\blookup\\s");

  @Test
  void kubernetesModeRendersTheSameObjectsEveryTime() {
    assertRendersAlike(ValueSet.EXISTING_SECRETS, Map.of("runtime.auth.mode", "kubernetes",
        "runtime.ingress.enabled", true, "metrics.podMonitor.enabled", true));
  }

  @Test
  void tokenModeWithAnExistingSecretRendersTheSameObjectsEveryTime() {
    // EXISTING_SECRETS is token mode with runtime.apiToken.existingSecret and a read-only key.
    assertRendersAlike(ValueSet.EXISTING_SECRETS, Map.of("metrics.serviceMonitor.enabled", true));
  }

  @Test
  void tokenModeWithTheOperatorsTokenRendersTheSameObjectsEveryTime() {
    assertRendersAlike(ValueSet.DEFAULTS, Map.of("runtime.auth.mode", "token",
        "runtime.apiToken.readTokenKey", "read", "watchNamespaces", List.of("shop")));
  }

  @Test
  void noTemplateReadsTheCluster() throws IOException {
    // lookup answers nothing under helm template, so whatever it keeps would differ between Helm and Argo CD.
    try (Stream<Path> templates = Files.list(Chart.dir().resolve("templates"))) {
      assertThat(templates).allSatisfy(t -> assertThat(LOOKUP.matcher(Files.readString(t)).find())
          .as("%s calls lookup", t.getFileName()).isFalse());
    }
  }

  private static void assertRendersAlike(ValueSet values, Map<String, Object> more) {
    Rendered first = Chart.template(values, more);
    Rendered second = Chart.template(values, more);
    assertThat(first.objects()).isNotEmpty();
    assertThat(second.yaml()).isEqualTo(first.yaml());
  }
}
