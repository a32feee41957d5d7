package dev.baton.devapi.cel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.NullValue;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The {@code x-kubernetes-validations} rules of one CRD, compiled with cel-java and evaluated the way the API server
 * does (apiextensions-apiserver {@code pkg/apiserver/schema/cel}): on the defaulted object, each rule once per value
 * its schema node has ({@code self}), rules using {@code oldSelf} only on updates and only where the old object has a
 * value at the same place (object fields by name, list-map items by their keys, map entries by key). A rule that does
 * not hold is an invalid field with the rule's message; {@code self} and {@code oldSelf} are untyped here ({@code dyn}),
 * where the API server types them from the schema, so a type error surfaces at evaluation instead of CRD creation.
 */
public final class CelValidator {
  private static final ConcurrentMap<String, Compiled> COMPILED = new ConcurrentHashMap<>();

  /** One refused value: the field path (as the API server prints it) and the message. */
  public record Violation(String field, String message) {}

  /** A rule as compiled, or why it does not compile. */
  public record Compiled(SchemaRule rule, CelAbstractSyntaxTree ast, CelRuntime.Program program, String error) {}

  private static final Cel CEL = CelFactory.standardCelBuilder()
      .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
      .addVar("self", SimpleType.DYN)
      .addVar("oldSelf", SimpleType.DYN)
      .addCompilerLibraries(CelExtensions.strings())
      .addRuntimeLibraries(CelExtensions.strings())
      .setResultType(SimpleType.BOOL)
      .build();

  private final JsonNode schema;
  /** By identity: equal schema nodes at two places keep their own rules. */
  private final Map<JsonNode, List<Compiled>> rulesByNode = new IdentityHashMap<>();
  private final List<Compiled> all = new ArrayList<>();

  /** The validator of an {@code openAPIV3Schema}. */
  public CelValidator(JsonNode openApiSchema) {
    this.schema = openApiSchema;
    for (SchemaRule rule : SchemaRule.of(openApiSchema)) {
      Compiled compiled = compile(rule);
      all.add(compiled);
      rulesByNode.computeIfAbsent(rule.schema(), k -> new ArrayList<>()).add(compiled);
    }
  }

  /**
   * Parses and checks a rule; the abstract syntax tree feeds {@link RuleCost}. The same rule text (such as
   * {@code self == oldSelf}) appears at many places of a CRD and in every CRD applied again: it is compiled once
   * (compiling costs milliseconds each, seconds in all on a loaded machine, on the dev API's one request thread).
   */
  public static Compiled compile(SchemaRule rule) {
    Compiled once = COMPILED.computeIfAbsent(rule.rule(), CelValidator::compileText);
    return new Compiled(rule, once.ast(), once.program(), once.error());
  }

  private static Compiled compileText(String text) {
    try {
      CelAbstractSyntaxTree ast = CEL.compile(text).getAst();
      return new Compiled(null, ast, CEL.createProgram(ast), null);
    } catch (CelValidationException | CelEvaluationException e) {
      return new Compiled(null, null, null, "compilation failed: " + e.getMessage());
    }
  }

  /** Parses a rule without checking it (its functions need not be declared here), e.g. to cost it. */
  public static CelAbstractSyntaxTree parse(String rule) throws CelValidationException {
    return CEL.parse(rule).getAst();
  }

  public List<Compiled> rules() {
    return all;
  }

  /** The rules {@code object} breaks; {@code old} is the stored object on an update, null on a create. */
  public List<Violation> validate(JsonNode object, JsonNode old) {
    List<Violation> out = new ArrayList<>();
    if (all.isEmpty()) {
      return out;
    }
    JsonNode self = rootValue(StructuralDefaults.apply(schema, object));
    JsonNode oldSelf = old == null ? null : rootValue(StructuralDefaults.apply(schema, old));
    walk(schema, self, oldSelf, "", out);
    return out;
  }

  /** What {@code self} is at the root: the schema's fields plus apiVersion, kind, metadata.name and generateName. */
  private static JsonNode rootValue(JsonNode object) {
    ObjectNode root = object.deepCopy();
    JsonNode metadata = object.path("metadata");
    ObjectNode visible = root.putObject("metadata");
    for (String f : List.of("name", "generateName")) {
      if (metadata.has(f)) {
        visible.set(f, metadata.get(f));
      }
    }
    return root;
  }

  private void walk(JsonNode s, JsonNode value, JsonNode old, String path, List<Violation> out) {
    if (value == null || value.isMissingNode() || value.isNull()) {
      return;
    }
    for (Compiled rule : rulesByNode.getOrDefault(s, List.of())) {
      evaluate(rule, value, old, path, s, out);
    }
    if (value.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        JsonNode child = s.path("properties").path(field.getKey());
        boolean isProperty = !child.isMissingNode();
        if (!isProperty && s.path("additionalProperties").isObject()) {
          child = s.get("additionalProperties");
        }
        if (child.isMissingNode()) {
          continue;
        }
        String childPath = isProperty ? (path.isEmpty() ? field.getKey() : path + "." + field.getKey())
            : path + "[" + field.getKey() + "]";
        walk(child, field.getValue(), old == null ? null : old.get(field.getKey()), childPath, out);
      }
    } else if (value.isArray() && s.has("items")) {
      boolean listMap = s.path("x-kubernetes-list-type").asText().equals("map");
      for (int i = 0; i < value.size(); i++) {
        JsonNode item = value.get(i);
        JsonNode oldItem = listMap && old != null && old.isArray() ? byKeys(old, item, s.get("x-kubernetes-list-map-keys"))
            : null;
        walk(s.get("items"), item, oldItem, path + "[" + i + "]", out);
      }
    }
  }

  private static JsonNode byKeys(JsonNode oldList, JsonNode item, JsonNode keys) {
    for (JsonNode candidate : oldList) {
      boolean same = true;
      for (JsonNode k : keys) {
        same &= candidate.path(k.asText()).equals(item.path(k.asText()));
      }
      if (same) {
        return candidate;
      }
    }
    return null;
  }

  private static void evaluate(Compiled rule, JsonNode value, JsonNode old, String path, JsonNode s,
      List<Violation> out) {
    String field = path.isEmpty() ? "<root>" : path;
    if (rule.error() != null) {
      out.add(new Violation(field, "Invalid value: " + quoted(rule.rule().rule()) + ": " + rule.error()));
      return;
    }
    boolean transition = rule.rule().transition();
    if (transition && (old == null || old.isNull())) {
      return;   // transition rules run on updates, where the old value exists
    }
    Map<String, Object> vars = new LinkedHashMap<>();
    vars.put("self", toCel(value));
    if (transition) {
      vars.put("oldSelf", toCel(old));
    }
    String type = s.path("type").asText("object");
    try {
      Object result = rule.program().eval(vars);
      if (!Boolean.TRUE.equals(result)) {
        String message = rule.rule().message() != null && !rule.rule().message().isBlank() ? rule.rule().message()
            : "failed rule: " + rule.rule().rule();
        String at = rule.rule().fieldPath() == null || rule.rule().fieldPath().isBlank() ? field
            : field + rule.rule().fieldPath();
        out.add(new Violation(at, "Invalid value: " + quoted(type) + ": " + message));
      }
    } catch (CelEvaluationException e) {
      out.add(new Violation(field, "Invalid value: " + quoted(type) + ": " + rule.rule().rule()
          + ": evaluation error: " + e.getMessage()));
    }
  }

  private static String quoted(String s) {
    return "\"" + s.replace("\"", "\\\"") + "\"";
  }

  /** JSON as CEL values: maps, lists, Long, Double, String, Boolean, null. */
  static Object toCel(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return NullValue.NULL_VALUE;
    }
    if (node.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      node.fields().forEachRemaining(e -> map.put(e.getKey(), toCel(e.getValue())));
      return map;
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(n -> list.add(toCel(n)));
      return list;
    }
    if (node.isIntegralNumber()) {
      return node.asLong();
    }
    if (node.isNumber()) {
      return node.asDouble();
    }
    if (node.isBoolean()) {
      return node.asBoolean();
    }
    return node.asText();
  }
}
