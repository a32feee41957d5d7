package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Argo CD renders the chart with {@code helm template} at every refresh and applies what differs: a GitOps-safe
 * configuration renders the same objects every time. The chart's only source of difference is the API token it makes
 * in token mode without runtime.apiToken.existingSecret (randAlphaNum, kept only through lookup, which helm template
 * cannot do): the README sends Argo CD and Flux to existingSecret.
 */
class GitOpsRenderTest {

  @Test
  void kubernetesModeRendersTheSameObjectsEveryTime() {
    assertRendersAlike(Map.of("runtime.auth.mode", "kubernetes", "runtime.ingress.enabled", true,
        "metrics.podMonitor.enabled", true));
  }

  @Test
  void tokenModeWithAnExistingSecretRendersTheSameObjectsEveryTime() {
    // EXISTING_SECRETS is token mode with runtime.apiToken.existingSecret and a read-only key.
    assertRendersAlike(Map.of("metrics.serviceMonitor.enabled", true));
  }

  @Test
  void tokenModeWithTheChartsTokenDoesNot() {
    Map<String, Object> values = Map.of("runtime.auth.mode", "token");
    assertThat(Chart.template(ValueSet.DEFAULTS, values).yaml()).as("a new random token at each render")
        .isNotEqualTo(Chart.template(ValueSet.DEFAULTS, values).yaml());
  }

  private static void assertRendersAlike(Map<String, Object> values) {
    Rendered first = Chart.template(ValueSet.EXISTING_SECRETS, values);
    Rendered second = Chart.template(ValueSet.EXISTING_SECRETS, values);
    assertThat(first.objects()).isNotEmpty();
    assertThat(second.yaml()).isEqualTo(first.yaml());
  }
}
