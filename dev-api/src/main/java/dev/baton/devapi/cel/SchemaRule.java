package dev.baton.devapi.cel;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@code x-kubernetes-validations} rule of a CRD schema: where it sits ({@code spec.queue.type},
 * {@code spec.steps[*]}), the schema node its {@code self} has, and how many times it can run for one object at most
 * (its cardinality: the product of the maxItems and maxProperties of the lists and maps around it, as the API server
 * computes it in apiextensions' {@code CELSchemaContext}; an unbounded list or map counts as the number of smallest
 * items that fit in a request).
 */
public record SchemaRule(String path, JsonNode schema, String rule, String message, String messageExpression,
    String fieldPath, long cardinality, boolean atRoot) {

  /** The API server's maximum request size (k8s.io/apiserver, {@code MaxRequestSizeBytes}): 3 MiB. */
  public static final long MAX_REQUEST_BYTES = 3L * 1024 * 1024;

  /** Whether the rule compares with the stored value ({@code oldSelf}): evaluated on updates only. */
  public boolean transition() {
    return rule.matches("(?s).*\\boldSelf\\b.*");
  }

  /** Every rule of an {@code openAPIV3Schema}, parents first. */
  public static List<SchemaRule> of(JsonNode root) {
    List<SchemaRule> rules = new ArrayList<>();
    collect(root, "", 1, true, rules);
    return rules;
  }

  private static void collect(JsonNode s, String path, long cardinality, boolean atRoot, List<SchemaRule> out) {
    for (JsonNode r : s.path("x-kubernetes-validations")) {
      out.add(new SchemaRule(path.isEmpty() ? "<root>" : path, s, r.path("rule").asText(),
          r.path("message").asText(null), r.path("messageExpression").asText(null), r.path("fieldPath").asText(null),
          cardinality, atRoot));
    }
    s.path("properties").fields().forEachRemaining(e ->
        collect(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey(), cardinality, false, out));
    if (s.has("items")) {
      collect(s.get("items"), path + "[*]", times(cardinality, elements(s, "maxItems")), false, out);
    }
    if (s.path("additionalProperties").isObject()) {
      collect(s.get("additionalProperties"), path + "[*]", times(cardinality, elements(s, "maxProperties")), false, out);
    }
  }

  /** maxItems / maxProperties, or how many of the smallest elements (2 bytes and a comma) fit in one request. */
  private static long elements(JsonNode s, String bound) {
    return s.has(bound) ? Math.max(0, s.get(bound).asLong()) : (MAX_REQUEST_BYTES - 2) / 3;
  }

  static long times(long a, long b) {
    return b != 0 && a > Long.MAX_VALUE / b ? Long.MAX_VALUE : a * b;
  }
}
