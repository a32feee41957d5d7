package dev.baton.crdtools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.v1alpha1.Bounds;
import dev.baton.api.v1alpha1.BranchSpec;
import dev.baton.api.v1alpha1.CaseSpec;
import dev.baton.api.v1alpha1.MapSpec;
import dev.baton.api.v1alpha1.StepSpec;
import io.fabric8.crd.generator.annotation.SchemaSwap;
import io.fabric8.crdv2.generator.v1.JsonSchema;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

/**
 * The nested steps of a Workflow, to {@link Bounds#NESTING} levels. Steps nest (parallel branches and choice cases hold
 * steps), but a CRD schema cannot refer to itself: the generator leaves out {@link StepSpec}'s nesting fields
 * ({@code parallel}, {@code choice}, {@code otherwise}, {@code map}: {@code @SchemaSwap} on Workflow) and this puts them back into
 * {@code spec.steps}, one copy of the step schema per level; the steps of the last level have no nesting fields. Each
 * level is as bounded as the first (maxItems from the fields' {@code @Size}), so the API server can size the object.
 */
final class NestedSteps {

  /** Only to generate the branch and case schemas, whose steps are then replaced level by level. */
  @SchemaSwap(originalType = StepSpec.class, fieldName = "parallel")
  @SchemaSwap(originalType = StepSpec.class, fieldName = "choice")
  @SchemaSwap(originalType = StepSpec.class, fieldName = "otherwise")
  @SchemaSwap(originalType = StepSpec.class, fieldName = "map")
  static final class Shapes {
    public BranchSpec branch;
    public CaseSpec when;
    public MapSpec map;
  }

  private NestedSteps() {}

  /** Replaces the steps' item schema of a Workflow's {@code spec} with the nested one. */
  static void expand(ObjectNode spec) {
    ObjectNode steps = (ObjectNode) spec.path("properties").path("steps");
    ObjectNode flat = (ObjectNode) steps.get("items");
    ObjectNode shapes = Serialization.jsonMapper().valueToTree(JsonSchema.from(Shapes.class));
    ObjectNode branch = (ObjectNode) shapes.path("properties").path("branch");
    ObjectNode choiceCase = (ObjectNode) shapes.path("properties").path("when");
    ObjectNode map = (ObjectNode) shapes.path("properties").path("map");
    steps.set("items", level(1, flat, branch, choiceCase, map));
  }

  private static ObjectNode level(int depth, ObjectNode flat, ObjectNode branch, ObjectNode choiceCase,
      ObjectNode map) {
    ObjectNode step = flat.deepCopy();
    oneKind(step, depth < Bounds.NESTING);
    if (depth >= Bounds.NESTING) {
      return step;
    }
    ObjectNode inner = level(depth + 1, flat, branch, choiceCase, map);
    ObjectNode properties = (ObjectNode) step.get("properties");
    properties.set("parallel", list("parallel", withSteps(branch, inner)));
    properties.set("choice", list("choice", withSteps(choiceCase, inner)));
    properties.set("otherwise", list("otherwise", inner.deepCopy()));
    ObjectNode mapStep = withSteps(map, inner);
    mapStep.put("description", description("map"));
    properties.set("map", mapStep);
    sortKeys(properties);
    return step;
  }

  /**
   * Exactly one kind per step, as the schema can say it at no CEL cost: one {@code oneOf} branch per kind, each
   * requiring that kind's fields (a step with two kinds' fields matches two branches, one with none matches none).
   * The Workflow translator checks the rest (a task field on a wait, say).
   */
  private static void oneKind(ObjectNode step, boolean nesting) {
    ArrayNode kinds = step.putArray("oneOf");
    kinds.addObject().putArray("required").add("service").add("command");
    if (nesting) {
      kinds.addObject().putArray("required").add("parallel");
      kinds.addObject().putArray("required").add("choice");
      kinds.addObject().putArray("required").add("map");
    }
    kinds.addObject().putArray("required").add("workflow");
    kinds.addObject().putArray("required").add("wait");
    kinds.addObject().putArray("required").add("delay");
  }

  private static ObjectNode withSteps(ObjectNode container, ObjectNode stepSchema) {
    ObjectNode copy = container.deepCopy();
    ((ObjectNode) copy.path("properties").path("steps")).set("items", stepSchema.deepCopy());
    return copy;
  }

  /** The array schema of one of StepSpec's nesting fields, from its annotations as the generator would write it. */
  private static ObjectNode list(String fieldName, ObjectNode items) {
    Field field;
    try {
      field = StepSpec.class.getDeclaredField(fieldName);
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("StepSpec has no field " + fieldName, e);
    }
    ObjectNode list = Serialization.jsonMapper().createObjectNode();
    list.put("description", description(fieldName));
    list.set("items", items);
    Size size = field.getAnnotation(Size.class);
    list.put("maxItems", size.max());
    if (size.min() > 0) {
      list.put("minItems", size.min());
    }
    list.put("type", "array");
    return list;
  }

  private static String description(String fieldName) {
    try {
      return StepSpec.class.getDeclaredField(fieldName).getAnnotation(JsonPropertyDescription.class).value();
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("StepSpec has no field " + fieldName, e);
    }
  }

  private static void sortKeys(ObjectNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    names.sort(String::compareTo);
    List<JsonNode> values = names.stream().map(node::get).toList();
    node.removeAll();
    for (int i = 0; i < names.size(); i++) {
      node.set(names.get(i), values.get(i));
    }
  }
}
