package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.crd.CrdSchemaValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * What the API server checks before it stores a custom resource, and the fabric8 mock does not: the object name,
 * and the CRD's structural schema (types, patterns, enums, minimums, required fields). Unknown fields are refused only
 * when the client asks for strict field validation ({@code kubectl apply} does by default); other clients' unknown
 * fields pass, as a cluster would accept them (and prune them). CEL rules ({@code x-kubernetes-validations}) are
 * not evaluated.
 */
final class SchemaAdmission {

  /** RFC 1123 subdomain, the rule for names of custom resources. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private static final Pattern UNKNOWN_PROPERTY = Pattern.compile("property '([^']+)'");

  private final Map<String, CrdSchemaValidator> validators = new ConcurrentHashMap<>();

  /** Why {@code object} may not be stored as a {@code type}; empty when it may. */
  List<ApiStatus.Cause> check(ResourceType type, JsonNode object, boolean strictFields) {
    List<ApiStatus.Cause> causes = new ArrayList<>();
    String name = object.path("metadata").path("name").asText("");
    if (!name.isEmpty() && (name.length() > 253 || !NAME.matcher(name).matches())) {
      causes.add(new ApiStatus.Cause("metadata.name", "Invalid value: " + Json.write(object.path("metadata").path("name"))
          + ": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must"
          + " start and end with an alphanumeric character"));
    }
    if (type.crd() == null) {
      return causes;
    }
    for (String violation : validator(type).validate(withoutNulls(object))) {
      if (!strictFields && isUnknownField(violation)) {
        continue;
      }
      causes.add(cause(object, violation));
    }
    return causes;
  }

  /** The API server prunes null fields (none of Baton's is nullable) before it validates. */
  private static JsonNode withoutNulls(JsonNode node) {
    if (node.isObject()) {
      com.fasterxml.jackson.databind.node.ObjectNode out = Json.object();
      node.fields().forEachRemaining(e -> {
        if (!e.getValue().isNull()) {
          out.set(e.getKey(), withoutNulls(e.getValue()));
        }
      });
      return out;
    }
    if (node.isArray()) {
      com.fasterxml.jackson.databind.node.ArrayNode out = Json.MAPPER.createArrayNode();
      node.forEach(v -> out.add(withoutNulls(v)));
      return out;
    }
    return node;
  }

  private CrdSchemaValidator validator(ResourceType type) {
    JsonNode crd = type.crd();
    String key = crd.path("metadata").path("name").asText() + "@" + crd.path("metadata").path("resourceVersion").asText();
    return validators.computeIfAbsent(key, k -> CrdSchemaValidator.of(List.of(crd)));
  }

  private static boolean isUnknownField(String violation) {
    return violation.contains("is not defined in the schema");
  }

  /**
   * {@code spec.delays[0]: does not match the regex pattern ^...$} becomes field {@code spec.delays[0]} with message
   * {@code Invalid value: "30 s": does not match the regex pattern ^...$}, the way the API server words it.
   */
  private static ApiStatus.Cause cause(JsonNode object, String violation) {
    int colon = violation.indexOf(": ");
    if (colon < 0) {
      return new ApiStatus.Cause("<root>", violation);
    }
    String field = violation.substring(0, colon);
    String problem = violation.substring(colon + 2);
    if (isUnknownField(problem)) {
      java.util.regex.Matcher m = UNKNOWN_PROPERTY.matcher(problem);
      String unknown = m.find() ? (field.isEmpty() ? "" : field + ".") + m.group(1) : field;
      return new ApiStatus.Cause(unknown, "field not declared in schema: unknown field \"" + unknown + "\"");
    }
    JsonNode value;
    try {
      value = JsonPath.compile("." + field).first(object);
    } catch (IllegalArgumentException e) {
      value = null;
    }
    if (value == null || problem.contains("required")) {
      return new ApiStatus.Cause(field, problem);
    }
    return new ApiStatus.Cause(field, "Invalid value: " + (value.isContainerNode() ? "\"object\"" : Json.write(value))
        + ": " + problem);
  }
}
