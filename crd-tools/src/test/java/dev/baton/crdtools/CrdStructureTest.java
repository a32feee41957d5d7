package dev.baton.crdtools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.crd.CommittedCrds;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a real API server (Kubernetes 1.27 or later) needs of a CRD before it accepts it, checked on the generated
 * CRDs (docs/design.md#resources): every string, list and map bounded (the CEL cost of a rule is computed from these
 * bounds), list-map keys it accepts, transition rules only where old and new values can be paired, {@code metadata}
 * restricted to its name; and a description on every field of Baton's own, so that {@code kubectl explain} reads well
 * from the top. Embedded Kubernetes types (EnvVar, SecurityContext ...) are described at their root field and bounded
 * throughout.
 */
class CrdStructureTest {

  record Crd(String file, Class<? extends HasMetadata> type, ObjectNode schema) {
    @Override
    public String toString() {
      return file;
    }
  }

  static Stream<Crd> crds() {
    return CommittedCrds.CRD_FILES.stream().map(file -> {
      JsonNode crd = CommittedCrds.read(file);
      Class<? extends HasMetadata> type = CommittedCrds.RESOURCES.stream()
          .filter(c -> c.getSimpleName().equals(crd.at("/spec/names/kind").asText())).findFirst().orElseThrow();
      return new Crd(file, type, (ObjectNode) crd.at("/spec/versions/0/schema/openAPIV3Schema"));
    });
  }

  private static List<ModelSchema.Node> nodes(Crd crd) {
    List<ModelSchema.Node> nodes = new ArrayList<>();
    ModelSchema.walk(crd.type(), crd.schema(), nodes::add);
    return nodes;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("crds")
  void everyStringListAndMapIsBounded(Crd crd) {
    List<String> unbounded = new ArrayList<>();
    boundsOf(crd.schema(), "", unbounded);
    assertThat(unbounded).as("fields without maxLength/maxItems/maxProperties in %s", crd).isEmpty();
  }

  /** Walks the schema alone, not the model, so that nothing the model walk might skip goes unchecked. */
  private static void boundsOf(JsonNode s, String path, List<String> unbounded) {
    if (s.path("type").asText().equals("string") || s.path("x-kubernetes-int-or-string").asBoolean()) {
      if (!s.has("maxLength")) {
        unbounded.add(path + " (string)");
      }
    }
    if (s.path("type").asText().equals("array") && !s.has("maxItems")) {
      unbounded.add(path + " (list)");
    }
    if (s.path("additionalProperties").isObject() && !s.has("maxProperties")) {
      unbounded.add(path + " (map)");
    }
    s.path("properties").fields().forEachRemaining(e -> boundsOf(e.getValue(), path + "." + e.getKey(), unbounded));
    if (s.has("items")) {
      boundsOf(s.get("items"), path + "[*]", unbounded);
    }
    if (s.path("additionalProperties").isObject()) {
      boundsOf(s.get("additionalProperties"), path + "{*}", unbounded);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("crds")
  void everyFieldIsDescribedFromTheRootDown(Crd crd) {
    List<ModelSchema.Node> nodes = nodes(crd);
    assertThat(nodes.stream().map(ModelSchema.Node::path)).as("walked paths of %s", crd).contains("", "spec", "status");
    List<String> undescribed = nodes.stream()
        .filter(n -> !n.embedded() || n.embeddedRoot())
        .filter(n -> !n.path().endsWith("[*]"))     // list items and map values are described by their list or map
        .filter(n -> !n.schema().has("description"))
        .map(n -> n.path().isEmpty() ? "<root>" : n.path())
        .toList();
    assertThat(undescribed).as("fields without a description in %s", crd).isEmpty();
    assertThat(nodes).as("conditions of %s", crd).filteredOn(n -> n.path().startsWith("status.conditions[*]."))
        .hasSizeGreaterThanOrEqualTo(5).allSatisfy(n -> assertThat(n.schema().has("description")).as(n.path()).isTrue());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("crds")
  void listMapKeysAreWhatTheApiServerAccepts(Crd crd) {
    List<String> lists = new ArrayList<>();
    listMaps(crd.schema(), "", lists);
    for (String problem : lists) {
      assertThat(problem).as(crd.file()).doesNotContain("INVALID");
    }
    assertThat(lists).as("list-maps of %s", crd).isNotEmpty();
  }

  private static void listMaps(JsonNode s, String path, List<String> out) {
    if (s.path("x-kubernetes-list-type").asText().equals("map")) {
      JsonNode items = s.path("items");
      StringBuilder problem = new StringBuilder(path);
      if (!items.path("type").asText().equals("object")) {
        problem.append(" INVALID: items must be objects");
      }
      if (!s.path("x-kubernetes-list-map-keys").isArray() || s.path("x-kubernetes-list-map-keys").isEmpty()) {
        problem.append(" INVALID: no keys");
      }
      for (JsonNode key : s.path("x-kubernetes-list-map-keys")) {
        JsonNode keySchema = items.path("properties").path(key.asText());
        boolean required = false;
        for (JsonNode r : items.path("required")) {
          required |= r.asText().equals(key.asText());
        }
        if (keySchema.isMissingNode() || List.of("object", "array").contains(keySchema.path("type").asText())) {
          problem.append(" INVALID: key ").append(key).append(" must be a scalar property of the items");
        }
        if (!required && !keySchema.has("default")) {
          problem.append(" INVALID: key ").append(key).append(" must be required or defaulted");
        }
      }
      out.add(problem.toString());
    }
    s.path("properties").fields().forEachRemaining(e -> listMaps(e.getValue(), path + "." + e.getKey(), out));
    if (s.has("items")) {
      listMaps(s.get("items"), path + "[*]", out);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("crds")
  void transitionRulesSitWhereOldAndNewValuesPairUp(Crd crd) {
    List<String> uncorrelatable = new ArrayList<>();
    transitionRules(crd.schema(), "", true, uncorrelatable);
    assertThat(uncorrelatable).as("rules using oldSelf under a list without map keys in %s", crd).isEmpty();
  }

  /** The API server pairs old and new items only through list-map keys (and map keys); atomic lists and sets break it. */
  private static void transitionRules(JsonNode s, String path, boolean correlatable, List<String> out) {
    for (JsonNode rule : s.path("x-kubernetes-validations")) {
      if (rule.path("rule").asText().contains("oldSelf") && !correlatable) {
        out.add(path + ": " + rule.path("rule").asText());
      }
    }
    s.path("properties").fields().forEachRemaining(e -> transitionRules(e.getValue(), path + "." + e.getKey(),
        correlatable, out));
    if (s.has("items")) {
      boolean map = s.path("x-kubernetes-list-type").asText().equals("map");
      transitionRules(s.get("items"), path + "[*]", correlatable && map, out);
    }
    if (s.path("additionalProperties").isObject()) {
      transitionRules(s.get("additionalProperties"), path + "{*}", correlatable, out);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("crds")
  void metadataRestrictsOnlyTheName(Crd crd) {
    JsonNode metadata = crd.schema().path("properties").path("metadata");
    if (!metadata.isMissingNode()) {
      List<String> keys = new ArrayList<>();
      metadata.fieldNames().forEachRemaining(keys::add);
      assertThat(keys).as("metadata schema of %s", crd).containsExactlyInAnyOrder("type", "properties");
      List<String> properties = new ArrayList<>();
      metadata.path("properties").fieldNames().forEachRemaining(properties::add);
      assertThat(properties).isSubsetOf("name", "generateName");
    }
  }
}
