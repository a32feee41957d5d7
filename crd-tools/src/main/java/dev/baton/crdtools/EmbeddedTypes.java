package dev.baton.crdtools;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.v1alpha1.Bounds;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;

/**
 * Bounds and descriptions for the Kubernetes types embedded in Baton's resources (EnvVar, ResourceRequirements,
 * Toleration, SecurityContext, Condition ...), whose generated schemas have neither: Kubernetes validates them in its
 * own code, a CRD only through its schema. A string gets {@link #DEFAULT_STRING} unless listed here, a list
 * {@link Bounds#SHORT_LIST} items, a map {@link Bounds#MAP_ENTRIES} entries.
 */
final class EmbeddedTypes {

  static final int DEFAULT_STRING = 1024;

  /** Kubernetes' quantity syntax (as controller-gen writes it for resource.Quantity): 100m, 0.5, 1Gi, 2e3 ... */
  static final String QUANTITY_PATTERN =
      "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

  /** What Kubernetes accepts as an environment variable name on every version from 1.27 (a C identifier, '-', '.'). */
  static final String ENV_NAME_PATTERN = "^[-._a-zA-Z][-._a-zA-Z0-9]*$";

  private static final Map<String, Integer> STRING_BOUNDS = Map.of(
      "EnvVar.value", Bounds.ENV_VALUE,
      "WindowsSecurityContextOptions.gmsaCredentialSpec", Bounds.ENV_VALUE,
      "Condition.type", Bounds.WORD,
      "Condition.reason", 1024,
      "Condition.message", Bounds.MESSAGE,
      "Condition.status", 16,
      "Condition.lastTransitionTime", 64,
      "Toleration.value", Bounds.LABEL_VALUE);

  private static final Map<String, String> PATTERNS = Map.of(
      "EnvVar.name", ENV_NAME_PATTERN);

  private static final Map<String, List<String>> ENUMS = Map.of(
      "Condition.status", List.of("True", "False", "Unknown"),
      "Toleration.operator", List.of("Exists", "Equal"),
      "Toleration.effect", List.of("NoSchedule", "PreferNoSchedule", "NoExecute"));

  private static final Map<String, String> DESCRIPTIONS = Map.ofEntries(
      Map.entry("EnvVar.name", "Name of the variable: letters, digits, '_', '-' and '.', not starting with a digit."),
      Map.entry("EnvVar.value", "Its value; $(VAR) references to variables defined before it are expanded."),
      Map.entry("EnvVar.valueFrom", "Where to read the value from instead (a Secret or ConfigMap key, a pod field, a "
          + "resource of the container): see 'kubectl explain pod.spec.containers.env.valueFrom'."),
      Map.entry("ResourceRequirements.requests", "Resources the scheduler reserves, e.g. cpu: 100m, memory: 256Mi."),
      Map.entry("ResourceRequirements.limits", "Most the container may use, e.g. memory: 512Mi."),
      Map.entry("ResourceRequirements.claims", "Dynamic resource claims of the pod the container uses."),
      Map.entry("Toleration.key", "Taint key the toleration applies to; empty with operator Exists matches every taint."),
      Map.entry("Toleration.operator", "Exists (any value) or Equal (the default: the value must match)."),
      Map.entry("Toleration.value", "Taint value to match with operator Equal."),
      Map.entry("Toleration.effect", "Taint effect to match: NoSchedule, PreferNoSchedule or NoExecute; empty matches all."),
      Map.entry("Toleration.tolerationSeconds", "With effect NoExecute: how long the pod stays bound after the taint appears."),
      Map.entry("Condition.type", "Kind of condition: Ready sums up the others (TopologyReady, DeploymentReady, AutoscalingReady)."),
      Map.entry("Condition.status", "True, False or Unknown."),
      Map.entry("Condition.reason", "One CamelCase word for the last transition, e.g. Reconciled, InvalidSpec, Conflict."),
      Map.entry("Condition.message", "What happened, in words a person can act on."),
      Map.entry("Condition.lastTransitionTime", "When the status last changed (RFC 3339)."),
      Map.entry("Condition.observedGeneration", "The metadata.generation the condition was written for."));

  private EmbeddedTypes() {}

  /** Fills in what Kubernetes' own types lack, for one node inside an embedded type. */
  static void refine(ModelSchema.Node node) {
    ObjectNode s = node.schema();
    String key = node.field() == null ? null : node.field().getDeclaringClass().getSimpleName() + "." + propertyName(node);
    if (key != null && !s.has("description") && DESCRIPTIONS.containsKey(key)) {
      s.put("description", DESCRIPTIONS.get(key));
    }
    if (key != null && ENUMS.containsKey(key) && !s.has("enum")) {
      s.set("enum", JsonNodeFactory.instance.arrayNode().addAll(
          ENUMS.get(key).stream().map(JsonNodeFactory.instance::textNode).toList()));
    }
    if (key != null && PATTERNS.containsKey(key) && !s.has("pattern")) {
      s.put("pattern", PATTERNS.get(key));
    }
    if (node.rawType() == Quantity.class) {
      s.put("pattern", QUANTITY_PATTERN);
      s.put("maxLength", 64);
    }
    if (isString(s) && !s.has("maxLength")) {
      s.put("maxLength", key != null && STRING_BOUNDS.containsKey(key) ? STRING_BOUNDS.get(key) : DEFAULT_STRING);
    }
    if ("array".equals(s.path("type").asText()) && !s.has("maxItems")) {
      s.put("maxItems", Bounds.SHORT_LIST);
    }
    if (s.path("additionalProperties").isObject() && !s.has("maxProperties")) {
      s.put("maxProperties", Bounds.MAP_ENTRIES);
    }
  }

  static boolean isString(ObjectNode s) {
    return "string".equals(s.path("type").asText())
        || s.path("x-kubernetes-int-or-string").asBoolean(false);
  }

  private static String propertyName(ModelSchema.Node node) {
    String path = node.path();
    return path.substring(path.lastIndexOf('.') + 1);
  }
}
