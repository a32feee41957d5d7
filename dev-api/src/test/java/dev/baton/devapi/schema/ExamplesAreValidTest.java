package dev.baton.devapi.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.baton.api.crd.CommittedCrds;
import dev.baton.api.v1alpha1.BatonGroup;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every document under examples/ is a Baton resource the CRD schema accepts and the model reads. */
class ExamplesAreValidTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final CrdSchemaValidator VALIDATOR = CrdSchemaValidator.fromClasspath();

  static Stream<Path> examples() throws IOException {
    Path root = Path.of("..", "examples").toAbsolutePath().normalize();
    try (Stream<Path> files = Files.walk(root)) {
      List<Path> yaml = files.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
          .sorted().toList();
      assertThat(yaml).isNotEmpty();
      return yaml.stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void exampleIsValid(Path file) throws IOException {
    List<JsonNode> docs = readAll(file);
    assertThat(docs).as("documents in %s", file).isNotEmpty();
    for (JsonNode doc : docs) {
      if (!doc.path("apiVersion").asText().equals(BatonGroup.API_VERSION)) {
        continue; // examples may carry plain Kubernetes objects too
      }
      assertThat(VALIDATOR.knows(doc.path("kind").asText())).as("kind of %s", doc).isTrue();
      assertThat(VALIDATOR.validate(doc)).as("schema errors in %s", file).isEmpty();
      Class<? extends HasMetadata> type = CommittedCrds.RESOURCES.stream()
          .filter(c -> c.getSimpleName().equals(doc.path("kind").asText())).findFirst().orElseThrow();
      HasMetadata resource = Serialization.unmarshal(YAML.writeValueAsString(doc), type);
      assertThat(resource.getMetadata().getName()).isNotBlank();
    }
  }

  static List<JsonNode> readAll(Path file) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (YAMLParser parser = new YAMLFactory().createParser(file.toFile())) {
      var it = YAML.readValues(parser, JsonNode.class);
      while (it.hasNext()) {
        JsonNode n = it.next();
        if (n != null && !n.isNull() && !n.isMissingNode()) {
          docs.add(n);
        }
      }
    }
    return docs;
  }
}
