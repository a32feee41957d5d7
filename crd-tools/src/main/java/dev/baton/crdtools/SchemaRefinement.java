package dev.baton.crdtools;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.crd.AllowedValues;
import dev.baton.api.crd.ListMap;
import dev.baton.api.crd.ListSet;
import dev.baton.api.crd.MetadataName;
import dev.baton.api.crd.OneOfRequired;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;

/**
 * What the fabric8 generator cannot express, added from annotations on the model classes: list-map keys
 * ({@link ListMap}), sets of scalars ({@link ListSet}), string enums ({@link AllowedValues}), {@code metadata.name} rules ({@link MetadataName}),
 * the shapes an object may take ({@link OneOfRequired}),
 * the nested steps of a Workflow ({@link NestedSteps}); descriptions of the root, {@code spec}, {@code status} and every object typed by a class with a
 * {@link JsonClassDescription}; a maxLength on every enum string; and the bounds and descriptions of embedded Kubernetes
 * types ({@link EmbeddedTypes}).
 */
final class SchemaRefinement implements CRDPostProcessor {

  private final List<Class<? extends HasMetadata>> resources;

  SchemaRefinement(List<Class<? extends HasMetadata>> resources) {
    this.resources = resources;
  }

  @Override
  public HasMetadata process(HasMetadata crd, String crdSpecVersion) {
    if (!(crd instanceof CustomResourceDefinition definition)) {
      return crd;
    }
    String kind = definition.getSpec().getNames().getKind();
    Class<? extends HasMetadata> resource =
        resources.stream().filter(c -> c.getSimpleName().equals(kind)).findFirst().orElse(null);
    if (resource == null) {
      return crd;
    }
    for (CustomResourceDefinitionVersion version : definition.getSpec().getVersions()) {
      ObjectNode schema = Serialization.jsonMapper().valueToTree(version.getSchema().getOpenAPIV3Schema());
      if (resource == Workflow.class) {
        NestedSteps.expand((ObjectNode) schema.path("properties").path("spec"));
      }
      ModelSchema.walk(resource, schema, SchemaRefinement::refine);
      metadataName(resource, schema);
      version.getSchema().setOpenAPIV3Schema(Serialization.jsonMapper().convertValue(schema, JSONSchemaProps.class));
    }
    return crd;
  }

  private static void refine(ModelSchema.Node node) {
    ObjectNode s = node.schema();
    JsonClassDescription described = node.rawType().getAnnotation(JsonClassDescription.class);
    if (described != null && !s.has("description")) {
      s.put("description", described.value());
    }
    OneOfRequired shapes = node.rawType().getAnnotation(OneOfRequired.class);
    if (shapes != null && !s.has("oneOf")) {
      ArrayNode oneOf = s.putArray("oneOf");
      for (String shape : shapes.value()) {
        ArrayNode required = oneOf.addObject().putArray("required");
        List.of(shape.split(",")).forEach(field -> required.add(field.trim()));
      }
    }
    if (node.field() != null) {
      ListMap listMap = node.field().getAnnotation(ListMap.class);
      if (listMap != null) {
        s.put("x-kubernetes-list-type", "map");
        s.set("x-kubernetes-list-map-keys", texts(List.of(listMap.keys())));
        requireKeys((ObjectNode) s.get("items"), listMap.keys());
      }
      if (node.field().isAnnotationPresent(ListSet.class)) {
        s.put("x-kubernetes-list-type", "set");
      }
      AllowedValues allowed = node.field().getAnnotation(AllowedValues.class);
      if (allowed != null) {
        s.set("enum", texts(List.of(allowed.value())));
      }
    }
    if (node.embedded()) {
      EmbeddedTypes.refine(node);
    }
    if (s.has("enum") && EmbeddedTypes.isString(s) && !s.has("maxLength")) {
      int longest = 0;
      for (JsonNode value : s.get("enum")) {
        longest = Math.max(longest, value.asText().length());
      }
      s.put("maxLength", longest);
    }
  }

  /** The API server accepts list-map keys only when every item has them: required, or defaulted. */
  private static void requireKeys(ObjectNode items, String[] keys) {
    ArrayNode required = items.withArray("required");
    for (String key : keys) {
      boolean listed = false;
      for (JsonNode r : required) {
        listed |= r.asText().equals(key);
      }
      if (!listed && !items.path("properties").path(key).has("default")) {
        required.add(key);
      }
    }
  }

  private static void metadataName(Class<?> resource, ObjectNode schema) {
    MetadataName rule = resource.getAnnotation(MetadataName.class);
    if (rule == null) {
      return;
    }
    ObjectNode name = JsonNodeFactory.instance.objectNode().put("type", "string").put("maxLength", rule.maxLength());
    if (!rule.pattern().isEmpty()) {
      name.put("pattern", rule.pattern());
    }
    ObjectNode metadata = JsonNodeFactory.instance.objectNode().put("type", "object");
    metadata.putObject("properties").set("name", name);
    ((ObjectNode) schema.get("properties")).set("metadata", metadata);
  }

  private static ArrayNode texts(List<String> values) {
    ArrayNode array = JsonNodeFactory.instance.arrayNode();
    values.forEach(array::add);
    return array;
  }
}
