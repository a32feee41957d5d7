package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** The objects of one {@code helm template} run, typed by kind (fabric8 model; unknown kinds stay generic). */
record Rendered(String yaml, List<HasMetadata> objects) {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  static Rendered parse(String yaml) {
    List<HasMetadata> objects = new ArrayList<>();
    try {
      for (JsonNode doc : YAML.readerFor(JsonNode.class).<JsonNode>readValues(yaml).readAll()) {
        if (doc == null || doc.isNull() || doc.isMissingNode() || doc.isEmpty()) {
          continue;
        }
        objects.add(SERIALIZATION.unmarshal(YAML.writeValueAsString(doc)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Rendered(yaml, List.copyOf(objects));
  }

  <T extends HasMetadata> List<T> all(Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  List<HasMetadata> ofKind(String kind) {
    return objects.stream().filter(o -> kind.equals(o.getKind())).toList();
  }

  <T extends HasMetadata> Optional<T> find(Class<T> type, String name) {
    return all(type).stream().filter(o -> name.equals(o.getMetadata().getName())).findFirst();
  }

  <T extends HasMetadata> T get(Class<T> type, String name) {
    return find(type, name).orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " named " + name
        + " in the rendered chart; it has " + names()));
  }

  /** The objects of a kind as JSON trees, whatever model class fabric8 read them into (Gateway API's, say, or none). */
  List<JsonNode> trees(String kind) {
    return ofKind(kind).stream().map(o -> SERIALIZATION.convertValue(o, JsonNode.class)).toList();
  }

  List<GenericKubernetesResource> generic(String kind) {
    return ofKind(kind).stream().map(GenericKubernetesResource.class::cast).toList();
  }

  /** kind/name of everything, for messages. */
  List<String> names() {
    return objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
  }

  Deployment operator() {
    return get(Deployment.class, Chart.RELEASE + "-operator");
  }

  Deployment runtime() {
    return get(Deployment.class, Chart.RELEASE + "-runtime");
  }

  static Container container(Deployment deployment) {
    List<Container> containers = deployment.getSpec().getTemplate().getSpec().getContainers();
    assertThat(containers).as("containers of %s", deployment.getMetadata().getName()).hasSize(1);
    return containers.get(0);
  }

  static Map<String, EnvVar> env(Deployment deployment) {
    return container(deployment).getEnv().stream()
        .collect(Collectors.toMap(EnvVar::getName, e -> e, (a, b) -> {
          throw new AssertionError("env " + a.getName() + " is set twice in " + deployment.getMetadata().getName());
        }, java.util.LinkedHashMap::new));
  }

  /** The variables with plain values, as the process reads its environment (the settings classes take such a map). */
  static Map<String, String> plainValues(Deployment deployment) {
    Map<String, String> plain = new java.util.HashMap<>();
    env(deployment).values().stream().filter(v -> v.getValue() != null)
        .forEach(v -> plain.put(v.getName(), v.getValue()));
    return plain;
  }

  static String value(Deployment deployment, String name) {
    EnvVar var = env(deployment).get(name);
    assertThat(var).as("env %s of %s", name, deployment.getMetadata().getName()).isNotNull();
    assertThat(var.getValueFrom()).as("%s is a plain value", name).isNull();
    return var.getValue();
  }
}
