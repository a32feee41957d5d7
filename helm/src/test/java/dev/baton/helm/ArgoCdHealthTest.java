package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.lib.jse.JsePlatform;

/**
 * The Argo CD health script of the chart README ({@code argocd/health.lua}) against sample Baton resources: Argo CD
 * runs it with {@code obj} set to the resource and reads {@code status} and {@code message} of what it returns.
 */
class ArgoCdHealthTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @ParameterizedTest(name = "{0} {1}: {2}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
    "WorkerService | no status yet       | Progressing | {metadata: {generation: 1}}                                                                     | Waiting for the Baton operator",
    "WorkerService | older generation    | Progressing | {metadata: {generation: 3}, status: {observedGeneration: 2, conditions: [{type: Ready, status: 'True', reason: Reconciled}]}} | generation 3",
    "WorkerService | ready               | Healthy     | {metadata: {generation: 2}, status: {observedGeneration: 2, conditions: [{type: TopologyReady, status: 'True'}, {type: Ready, status: 'True', reason: Reconciled, message: 'topology and 2/2 replicas'}]}} | Reconciled: topology and 2/2 replicas",
    "WorkerService | pods starting       | Progressing | {metadata: {generation: 1}, status: {observedGeneration: 1, conditions: [{type: Ready, status: 'False', reason: ReplicasUnavailable, message: 0/2 available}]}} | ReplicasUnavailable",
    "WorkerService | name taken          | Degraded    | {metadata: {generation: 1}, status: {observedGeneration: 1, conditions: [{type: Ready, status: 'False', reason: Conflict, message: service payment is claimed by default/other}]}} | Conflict: service payment",
    "WorkerService | KEDA forbidden      | Degraded    | {metadata: {generation: 1}, status: {observedGeneration: 1, conditions: [{type: Ready, status: 'False', reason: KedaForbidden}]}} | KedaForbidden",
    "Workflow      | unknown service     | Degraded    | {metadata: {generation: 1}, status: {observedGeneration: 1, conditions: [{type: Ready, status: 'False', reason: MissingService, message: no WorkerService serves inventory}]}} | MissingService",
    "Workflow      | not granted         | Degraded    | {metadata: {generation: 1}, status: {observedGeneration: 1, conditions: [{type: Ready, status: 'False', reason: Forbidden, message: 'namespace team-b may not command service payment'}]}} | Forbidden: namespace team-b",
    "Workflow      | ready               | Healthy     | {metadata: {generation: 4}, status: {observedGeneration: 4, steps: 3, running: 2, conditions: [{type: Ready, status: 'True', reason: Reconciled}]}} | Reconciled",
    "Workflow      | broker down         | Degraded    | {metadata: {generation: 1}, status: {observedGeneration: 1, conditions: [{type: Ready, status: 'False', reason: BrokerUnavailable}]}} | BrokerUnavailable",
    "RetryPolicy   | bad spec            | Degraded    | {metadata: {generation: 1}, status: {observedGeneration: 1, conditions: [{type: Ready, status: 'False', reason: InvalidSpec, message: 'delays[0] is not a duration'}]}} | InvalidSpec",
    "RetryPolicy   | unknown readiness   | Progressing | {metadata: {generation: 1}, status: {observedGeneration: 1, conditions: [{type: Ready, status: Unknown, reason: Pending}]}} | Pending",
    "RetryPolicy   | no Ready condition  | Progressing | {metadata: {generation: 1}, status: {observedGeneration: 1, conditions: []}}                     | No Ready condition",
  })
  void healthOfASampleResource(String kind, String what, String health, String resource, String message)
      throws IOException {
    JsonNode obj = YAML.readTree(resource);
    ((com.fasterxml.jackson.databind.node.ObjectNode) obj).put("apiVersion", "baton.dev/v1alpha1").put("kind", kind);

    Globals globals = JsePlatform.standardGlobals();
    globals.set("obj", lua(obj));
    LuaValue hs = globals.load(Files.readString(Chart.dir().resolve("argocd/health.lua")), "health.lua").call();

    assertThat(hs.get("status").tojstring()).as("%s %s", kind, what).isEqualTo(health);
    assertThat(hs.get("message").tojstring()).contains(message);
  }

  @Test
  void theReadyMadePatchOfArgocdCmHoldsTheScriptUnderEachKindsKey() throws IOException {
    String script = Files.readString(Chart.dir().resolve("argocd/health.lua"));
    JsonNode data = YAML.readTree(Chart.dir().resolve("argocd/argocd-cm-patch.yaml").toFile()).path("data");

    // One key per kind the chart installs (crds/), Argo CD's <group>_<kind>, each holding the script as it is.
    List<String> keys = new ArrayList<>();
    data.fieldNames().forEachRemaining(keys::add);
    assertThat(keys).containsExactlyInAnyOrderElementsOf(crdKinds().stream()
        .map(kind -> "resource.customizations.health." + kind).toList()).hasSize(3);
    for (String key : keys) {
      assertThat(data.path(key).asText()).as(key).isEqualTo(script.endsWith("\n") ? script : script + "\n");
    }
  }

  /** {@code <group>_<kind>} of every CRD in the chart's crds/. */
  private static List<String> crdKinds() throws IOException {
    try (Stream<Path> files = Files.list(Chart.dir().resolve("crds"))) {
      List<String> kinds = new ArrayList<>();
      for (Path file : files.sorted().toList()) {
        JsonNode spec = YAML.readTree(file.toFile()).path("spec");
        kinds.add(spec.path("group").asText() + "_" + spec.at("/names/kind").asText());
      }
      return kinds;
    }
  }

  /** JSON as Argo CD hands it to Lua: objects and arrays as tables (arrays from index 1), scalars as values. */
  private static LuaValue lua(JsonNode node) {
    if (node.isObject()) {
      LuaTable table = new LuaTable();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        table.set(e.getKey(), lua(e.getValue()));
      }
      return table;
    }
    if (node.isArray()) {
      LuaTable table = new LuaTable();
      for (int i = 0; i < node.size(); i++) {
        table.set(i + 1, lua(node.get(i)));
      }
      return table;
    }
    if (node.isIntegralNumber()) {
      return LuaValue.valueOf(node.asLong());
    }
    if (node.isNumber()) {
      return LuaValue.valueOf(node.asDouble());
    }
    if (node.isBoolean()) {
      return LuaValue.valueOf(node.asBoolean());
    }
    return node.isNull() ? LuaValue.NIL : LuaValue.valueOf(node.asText());
  }
}
