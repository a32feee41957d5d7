package dev.baton.crdtools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.crd.CommittedCrds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Renders the field reference of the Baton resources (docs/crd-reference.md) from the CRDs themselves: every field
 * with its type, whether it is required, its default, its validation and its description. Generated, so it cannot
 * drift from what the API server enforces; CrdReferenceIsCurrentTest fails when the committed file is stale.
 */
public final class CrdReference {

  private CrdReference() {}

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args.length > 0 ? args[0] : "docs/crd-reference.md");
    Files.writeString(out, render(), StandardCharsets.UTF_8);
    System.out.println("CRD reference written to " + out.toAbsolutePath());
  }

  public static String render() {
    StringBuilder md = new StringBuilder();
    md.append("# Resource reference\n\n")
        .append("Generated from the CRDs in `crds/` by `CrdReference`; refresh with\n")
        .append("`mvn -pl crd-tools -am test -Dtest=CrdReferenceIsCurrentTest -Dsurefire.failIfNoSpecifiedTests=false -Dbaton.docs.update=true`.\n")
        .append("Group `baton.dev`, version `v1alpha1`, all namespaced.\n")
        .append("Commented examples: `examples/reference/`. `kubectl explain <kind>.spec` shows the same descriptions.\n");
    for (String file : CommittedCrds.CRD_FILES) {
      JsonNode crd = CommittedCrds.read(file);
      JsonNode version = crd.at("/spec/versions/0");
      String kind = crd.at("/spec/names/kind").asText();
      md.append("\n## ").append(kind).append("\n\n");
      md.append("`kubectl get ").append(crd.at("/spec/names/plural").asText()).append("`");
      List<String> shortNames = new ArrayList<>();
      crd.at("/spec/names/shortNames").forEach(n -> shortNames.add(n.asText()));
      if (!shortNames.isEmpty()) {
        md.append(" (short: `").append(String.join("`, `", shortNames)).append("`)");
      }
      md.append(" shows: ");
      List<String> columns = new ArrayList<>();
      version.path("additionalPrinterColumns").forEach(c ->
          columns.add(c.path("name").asText().toUpperCase() + (c.path("priority").asInt() > 0 ? " (-o wide)" : "")));
      md.append(String.join(", ", columns)).append(".\n");
      JsonNode schemaRoot = version.at("/schema/openAPIV3Schema");
      md.append("\n").append(cell(schemaRoot.path("description").asText())).append("\n");
      JsonNode name = schemaRoot.at("/properties/metadata/properties/name");
      if (!name.isMissingNode()) {
        md.append("\n`metadata.name`: ").append(constraints(name).replaceFirst("^ \\((.*)\\)$", "$1")).append(".\n");
      }
      List<String> rootRules = new ArrayList<>();
      rules(rootRules, "metadata.name", schemaRoot);
      rootRules.forEach(r -> md.append("\nChecked by the API server (CEL): ").append(r).append("\n"));
      JsonNode root = schemaRoot.path("properties");
      Set<String> kubernetesTypes = kubernetesTypes(kind, schemaRoot);
      for (String part : List.of("spec", "status")) {
        JsonNode schema = root.path(part);
        List<String> rules = new ArrayList<>();
        rules(rules, part, schema);
        md.append("\n| field | type | description |\n|---|---|---|\n");
        fields(md, rules, kubernetesTypes, part, schema, schema.path("required"));
        if (!rules.isEmpty()) {
          md.append("\nChecked by the API server (CEL; the dev API evaluates the same rules) and by the operator:\n\n");
          rules.forEach(r -> md.append("- ").append(r).append("\n"));
        }
      }
    }
    return md.toString();
  }

  private static void fields(StringBuilder md, List<String> rules, Set<String> kubernetesTypes, String path,
      JsonNode schema, JsonNode required) {
    Set<String> req = new HashSet<>();
    required.forEach(r -> req.add(r.asText()));
    JsonNode props = schema.path("properties");
    for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = path + "." + e.getKey();
      JsonNode f = e.getValue();
      boolean list = "array".equals(f.path("type").asText());
      JsonNode item = list ? f.path("items") : f;
      md.append("| `").append(name).append(list ? "[]" : "").append("` | ").append(type(f))
          .append(req.contains(e.getKey()) ? ", **required**" : "").append(" | ")
          .append(cell(f.path("description").asText())).append(constraints(f)).append(" |\n");
      if (item.has("properties") && !kubernetesTypes.contains(name)) {
        fields(md, rules, kubernetesTypes, name + (list ? "[]" : ""), item, item.path("required"));
      }
      rules(rules, name, item);
    }
  }

  /**
   * The fields typed by Kubernetes core types (EnvVar, Affinity, Volume, Condition ...), which are not expanded:
   * {@code kubectl explain pod.spec} describes them. Named as the reference names fields ({@code spec.steps[].x}).
   */
  private static Set<String> kubernetesTypes(String kind, JsonNode schemaRoot) {
    Set<String> names = new HashSet<>();
    CommittedCrds.RESOURCES.stream().filter(c -> c.getSimpleName().equals(kind)).findFirst().ifPresent(resource ->
        ModelSchema.walk(resource, (ObjectNode) schemaRoot.deepCopy(), node -> {
          // Parents come first: the first embedded node of a path is the field (or, for a list, its items).
          String name = node.path().replace("[*]", "[]").replaceFirst("\\[]$", "");
          if (node.embedded() && names.stream().noneMatch(n -> name.equals(n) || name.startsWith(n + "."))) {
            names.add(name);
          }
        }));
    return names;
  }

  private static String type(JsonNode f) {
    if (f.path("x-kubernetes-int-or-string").asBoolean(false)) {
      return "integer or string";
    }
    String t = f.path("type").asText("object");
    if ("array".equals(t)) {
      return "list of " + f.path("items").path("type").asText("object");
    }
    if (f.has("additionalProperties") && f.path("additionalProperties").isObject()) {
      return "map of " + f.path("additionalProperties").path("type").asText("object");
    }
    return t;
  }

  private static String constraints(JsonNode f) {
    List<String> c = new ArrayList<>();
    JsonNode item = "array".equals(f.path("type").asText()) ? f.path("items") : f;
    if (f.has("default")) {
      JsonNode d = f.get("default");
      c.add("default `" + (d.isValueNode() ? d.asText() : d.toString()) + "`");
    }
    if (item.has("enum")) {
      List<String> values = new ArrayList<>();
      item.get("enum").forEach(v -> values.add("`" + v.asText() + "`"));
      c.add("one of " + String.join(", ", values));
    }
    if (item.has("pattern")) {
      c.add("pattern `" + item.get("pattern").asText().replace("|", "\\|") + "`");
    }
    if (f.has("minimum")) {
      c.add("minimum " + f.get("minimum").asLong());
    }
    if (f.has("maximum")) {
      c.add("maximum " + f.get("maximum").asLong());
    }
    if (f.has("minItems")) {
      c.add("at least " + f.get("minItems").asLong() + " item(s)");
    }
    if (f.has("maxItems")) {
      c.add("at most " + f.get("maxItems").asLong() + " items");
    }
    if (f.has("maxProperties")) {
      c.add("at most " + f.get("maxProperties").asLong() + " entries");
    }
    if (item.has("maxLength") && !item.has("enum")) {
      c.add("at most " + item.get("maxLength").asLong() + " characters");
    }
    if (f.path("x-kubernetes-list-type").asText().equals("map")) {
      List<String> keys = new ArrayList<>();
      f.path("x-kubernetes-list-map-keys").forEach(k -> keys.add("`" + k.asText() + "`"));
      c.add("unique by " + String.join(", ", keys));
    }
    if (f.path("x-kubernetes-list-type").asText().equals("set")) {
      c.add("no duplicates");
    }
    return c.isEmpty() ? "" : " (" + String.join("; ", c) + ")";
  }

  private static void rules(List<String> out, String path, JsonNode schema) {
    for (JsonNode rule : schema.path("x-kubernetes-validations")) {
      out.add("`" + path + "`: " + rule.path("message").asText() + " (`" + rule.path("rule").asText() + "`)");
    }
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }
}
