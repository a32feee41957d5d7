package dev.baton.helm;

import static dev.baton.helm.Rendered.env;
import static dev.baton.helm.Rendered.value;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The otel values become the runtime's standard OTEL_* variables; the operator, which makes no spans, gets none. */
class OtelValuesTest {

  @Test
  void by_default_only_the_propagators_are_set_and_nothing_is_exported() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS);

    assertThat(value(chart.runtime(), "OTEL_PROPAGATORS")).isEqualTo("tracecontext,baggage");
    assertThat(env(chart.runtime())).doesNotContainKeys("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG");
    assertThat(env(chart.operator()).keySet()).noneMatch(name -> name.startsWith("OTEL_"));
  }

  @Test
  void enabled_the_runtime_exports_over_otlp_as_the_values_say() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS, Map.of(
        "otel.enabled", true,
        "otel.endpoint", "http://otel-collector.monitoring.svc:4317",
        "otel.protocol", "grpc",
        "otel.propagators", List.of("b3multi", "tracecontext"),
        "otel.resourceAttributes", Map.of("deployment.environment.name", "prod", "team", "payments"),
        "otel.sampler", Map.of("type", "parentbased_traceidratio", "arg", "0.25")));

    assertThat(value(chart.runtime(), "OTEL_TRACES_EXPORTER")).isEqualTo("otlp");
    assertThat(value(chart.runtime(), "OTEL_EXPORTER_OTLP_ENDPOINT")).isEqualTo(
        "http://otel-collector.monitoring.svc:4317");
    assertThat(value(chart.runtime(), "OTEL_EXPORTER_OTLP_PROTOCOL")).isEqualTo("grpc");
    assertThat(value(chart.runtime(), "OTEL_PROPAGATORS")).isEqualTo("b3multi,tracecontext");
    assertThat(value(chart.runtime(), "OTEL_RESOURCE_ATTRIBUTES")).isEqualTo(
        "deployment.environment.name=prod,team=payments");
    assertThat(value(chart.runtime(), "OTEL_TRACES_SAMPLER")).isEqualTo("parentbased_traceidratio");
    assertThat(value(chart.runtime(), "OTEL_TRACES_SAMPLER_ARG")).isEqualTo("0.25");
    assertThat(env(chart.operator()).keySet()).noneMatch(name -> name.startsWith("OTEL_"));
  }
}
