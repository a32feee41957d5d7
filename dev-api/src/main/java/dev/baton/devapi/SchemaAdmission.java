package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import dev.baton.devapi.cel.CelValidator;
import dev.baton.devapi.cel.StructuralDefaults;
import dev.baton.devapi.schema.CrdSchemaValidator;
import dev.baton.devapi.schema.StructuralPruning;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the API server checks before it stores a custom resource, and the fabric8 mock does not: the object name, the
 * CRD's structural schema (types, patterns, enums, bounds, required fields, list-map keys, the CRD's own rules for
 * {@code metadata.name}) and its CEL rules ({@code x-kubernetes-validations}, transition rules against the stored
 * object on updates), on the object with the schema's defaults filled in. Unknown fields are refused only when the
 * client asks for strict field validation ({@code kubectl apply} does by default); other clients' unknown fields pass
 * and {@link #admit} drops them, as a cluster accepts and prunes them. Messages are worded as the API server words them.
 */
final class SchemaAdmission {

  /** RFC 1123 subdomain, the rule for names of custom resources. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private static final Pattern UNKNOWN_PROPERTY = Pattern.compile("property '([^']+)'");
  private static final Pattern AT_MOST_CHARACTERS = Pattern.compile("must be at most (\\d+) characters long");
  private static final Pattern AT_LEAST_CHARACTERS = Pattern.compile("must be at least (\\d+) characters long");
  private static final Pattern AT_MOST_ITEMS = Pattern.compile("must have at most (\\d+) items but found (\\d+)");
  private static final Pattern AT_LEAST_ITEMS = Pattern.compile("must have at least (\\d+) items but found (\\d+)");
  private static final Pattern AT_MOST_PROPERTIES = Pattern.compile("must have at most (\\d+) properties");
  private static final Pattern ENUMERATION = Pattern.compile("does not have a value in the enumeration \\[(.*)]");
  private static final Pattern REGEX = Pattern.compile("does not match the regex pattern (.*)");
  private static final Pattern REQUIRED = Pattern.compile("required property '([^']+)' not found");

  private final Map<String, CrdSchemaValidator> validators = new ConcurrentHashMap<>();
  private final Map<String, CelValidator> rules = new ConcurrentHashMap<>();

  /**
   * Why {@code object} may not be stored as a {@code type}; empty when it may. {@code old} is the stored object on an
   * update (transition rules compare with it), null on a create.
   */
  List<ApiStatus.Cause> check(ResourceType type, JsonNode object, JsonNode old, boolean strictFields) {
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
    JsonNode clean = withoutNulls(object);
    for (String violation : validator(type).validate(clean)) {
      if (!strictFields && isUnknownField(violation)) {
        continue;
      }
      causes.add(cause(object, violation));
    }
    if (causes.isEmpty()) {
      // As on the API server, CEL rules run on an object that passed the structural schema.
      for (CelValidator.Violation v : celRules(type).validate(clean, old == null ? null : withoutNulls(old))) {
        causes.add(new ApiStatus.Cause(v.field(), v.message()));
      }
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

  /**
   * The object as an API server stores it once admitted: pruned of what its schema does not declare
   * ({@link StructuralPruning}), then with the schema's defaults filled in ({@link StructuralDefaults}); the unknown
   * fields dropped are for the client's warnings.
   */
  StructuralPruning.Pruned admit(ResourceType type, JsonNode object) {
    JsonNode schema = type.crdVersion().at("/schema/openAPIV3Schema");
    StructuralPruning.Pruned pruned = StructuralPruning.prune(schema, object);
    return new StructuralPruning.Pruned(StructuralDefaults.apply(schema, pruned.object()), pruned.unknownFields());
  }

  private CrdSchemaValidator validator(ResourceType type) {
    return validators.computeIfAbsent(key(type), k -> CrdSchemaValidator.of(List.of(type.crd())));
  }

  private CelValidator celRules(ResourceType type) {
    return rules.computeIfAbsent(key(type), k -> new CelValidator(type.crdVersion().at("/schema/openAPIV3Schema")));
  }

  private static String key(ResourceType type) {
    JsonNode crd = type.crd();
    return crd.path("metadata").path("name").asText() + "@" + crd.path("metadata").path("resourceVersion").asText();
  }

  private static boolean isUnknownField(String violation) {
    return violation.contains("is not defined in the schema");
  }

  /**
   * {@code spec.delays[0]: does not match the regex pattern ^...$} becomes field {@code spec.delays[0]} with message
   * {@code Invalid value: "30 s": spec.delays[0] in body should match '^...$'}, the way the API server words it.
   */
  private static ApiStatus.Cause cause(JsonNode object, String violation) {
    int colon = violation.indexOf(": ");
    if (colon < 0) {
      return new ApiStatus.Cause("<root>", violation);
    }
    String field = violation.substring(0, colon);
    String problem = violation.substring(colon + 2);
    if (isUnknownField(problem)) {
      Matcher m = UNKNOWN_PROPERTY.matcher(problem);
      String unknown = m.find() ? (field.isEmpty() ? "" : field + ".") + m.group(1) : field;
      return new ApiStatus.Cause(unknown, "field not declared in schema: unknown field \"" + unknown + "\"");
    }
    Matcher required = REQUIRED.matcher(problem);
    if (required.find()) {
      return new ApiStatus.Cause((field.isEmpty() ? "" : field + ".") + required.group(1), "Required value");
    }
    if (problem.startsWith("Duplicate value")) {
      return new ApiStatus.Cause(field, problem);
    }
    JsonNode value;
    try {
      value = JsonPath.compile("." + field).first(object);
    } catch (IllegalArgumentException e) {
      value = null;
    }
    String shown = value == null ? "null" : value.isContainerNode() ? "\"object\"" : Json.write(value);
    Matcher m;
    if ((m = AT_MOST_CHARACTERS.matcher(problem)).find()) {
      return new ApiStatus.Cause(field, "Too long: may not be more than " + m.group(1) + " bytes");
    }
    if ((m = AT_MOST_ITEMS.matcher(problem)).find()) {
      return new ApiStatus.Cause(field, "Too many: " + m.group(2) + ": must have at most " + m.group(1) + " items");
    }
    if ((m = AT_MOST_PROPERTIES.matcher(problem)).find()) {
      return new ApiStatus.Cause(field, "Too many: " + (value == null ? "?" : value.size()) + ": must have at most "
          + m.group(1) + " items");
    }
    if ((m = ENUMERATION.matcher(problem)).find()) {
      return new ApiStatus.Cause(field, "Unsupported value: " + shown + ": supported values: "
          + m.group(1).replaceAll(",\\s*", ", "));
    }
    if ((m = REGEX.matcher(problem)).find()) {
      return new ApiStatus.Cause(field, "Invalid value: " + shown + ": " + field + " in body should match '"
          + m.group(1) + "'");
    }
    if ((m = AT_LEAST_CHARACTERS.matcher(problem)).find()) {
      return new ApiStatus.Cause(field, "Invalid value: " + shown + ": " + field + " in body should be at least "
          + m.group(1) + " chars long");
    }
    if ((m = AT_LEAST_ITEMS.matcher(problem)).find()) {
      return new ApiStatus.Cause(field, "Invalid value: " + m.group(2) + ": " + field + " in body should have at least "
          + m.group(1) + " items");
    }
    return new ApiStatus.Cause(field, "Invalid value: " + shown + ": " + problem);
  }
}
