package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Flux computes health with kstatus, which needs no configuration when a resource's status has
 * {@code observedGeneration} and a {@code Ready} condition (type, status, reason, message) under a status subresource:
 * every CRD the chart installs has them.
 */
class FluxKstatusTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static Stream<Path> crds() throws IOException {
    try (Stream<Path> files = Files.list(Chart.dir().resolve("crds"))) {
      List<Path> all = files.filter(p -> p.toString().endsWith(".yml")).sorted().toList();
      assertThat(all).hasSize(3);
      return all.stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("crds")
  void statusHasWhatKstatusReads(Path file) throws IOException {
    JsonNode version = YAML.readTree(file.toFile()).at("/spec/versions/0");
    assertThat(version.at("/subresources/status").isObject()).as("status subresource").isTrue();
    JsonNode status = version.at("/schema/openAPIV3Schema/properties/status/properties");
    assertThat(status.at("/observedGeneration/type").asText()).isEqualTo("integer");
    JsonNode conditions = status.path("conditions");
    assertThat(conditions.path("x-kubernetes-list-map-keys").toString()).isEqualTo("[\"type\"]");
    JsonNode condition = conditions.at("/items/properties");
    for (String field : List.of("type", "status", "reason", "message", "lastTransitionTime")) {
      assertThat(condition.has(field)).as("conditions[].%s", field).isTrue();
    }
    assertThat(condition.at("/status/enum").toString()).isEqualTo("[\"True\",\"False\",\"Unknown\"]");
  }
}
