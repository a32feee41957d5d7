package dev.baton.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.client.TolerantSerialization;
import dev.baton.api.crd.CommittedCrds;
import dev.baton.api.json.Json;
import dev.baton.devapi.DevApiServer;
import dev.baton.devapi.schema.CrdSchemaValidator;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.OperatorSettings;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.suite.Wait;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Custom resources fuzzed from the CRD schemas: for every field of a rich, valid resource of each kind, the
 * variants its schema forbids (wrong type, pattern, enum, minimum/maximum, maxItems/minItems, missing required
 * field, unknown field), plus the violations only the CRDs' CEL rules (and list-map keys) catch. Each is sent to the
 * dev API (schema and CEL admission with strict field validation, as a real API server does for {@code kubectl apply})
 * with the operator running behind it: a variant is either refused there (422 naming the field; every CEL-only
 * variant is) or reconciled into a Ready condition with a reason; never an operator crash, and afterwards the
 * resources stay calm (no status churn, no ERROR lines) over several resyncs.
 */
class CrFuzzIT {

  static final String NS = "default";
  static final Map<String, String> PLURALS = Map.of("RetryPolicy", "retrypolicies", "WorkerService",
      "workerservices", "Workflow", "workflows");

  static DevApiServer api;
  static KubernetesClient client;
  static BatonOperator operator;
  static String vhost;
  static final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  static final HttpClient http = HttpClient.newHttpClient();

  record Variant(String kind, String name, String what, ObjectNode resource) {}

  @BeforeAll
  static void start() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    logs.start();
    root.addAppender(logs);
    Infra infra = Infra.get();
    vhost = infra.rabbit.createVhost("fuzz");
    api = DevApiServer.start("127.0.0.1", 0);
    client = TolerantSerialization.clientBuilder().withConfig(api.clientConfig()).build();
    operator = BatonOperator.start(client, OperatorSettings.localDefaults().toBuilder()
        .managementUrl(infra.rabbit.managementUrl()).amqp("127.0.0.1", infra.rabbit.amqpPort()).vhost(vhost)
        .userPrefix("baton-fz-").resync(Duration.ofSeconds(3)).serverSideApply(false).build());
  }

  @AfterAll
  static void stop() {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
    operator.close();
    client.close();
    api.close();
    Infra infra = Infra.get();
    infra.rabbit.management().getUsers().stream().map(u -> u.getName()).filter(n -> n.startsWith("baton-fz-"))
        .forEach(infra.rabbit.management()::deleteUser);
    infra.rabbit.management().deleteVhost(vhost);
  }

  // --- the valid resources every variant starts from ---------------------------------------------------------------

  static ObjectNode base(String kind) {
    String spec = switch (kind) {
      case "RetryPolicy" -> "{\"maxAttempts\":3,\"delays\":[\"1s\",\"2s\"]}";
      case "WorkerService" -> "{\"service\":\"SERVICE\",\"commands\":[{\"name\":\"work\",\"retryPolicy\":\"fuzz-policy\"},"
          + "{\"name\":\"undo\"}],\"subscriptions\":[{\"name\":\"notify\",\"service\":\"fz-base\","
          + "\"pattern\":\"*.work.failed\",\"retryPolicy\":\"fuzz-policy\"}],\"queue\":{\"type\":\"classic\","
          + "\"prefetch\":10},\"deployment\":{\"image\":\"example/worker:1\",\"replicas\":1,\"imagePullPolicy\":"
          + "\"IfNotPresent\",\"serviceAccountName\":\"default\",\"env\":[{\"name\":\"A\",\"value\":\"b\"}],"
          + "\"podLabels\":{\"team\":\"fuzz\"}},\"autoscaling\":{\"minReplicas\":1,\"maxReplicas\":3,"
          + "\"targetQueueDepth\":100,\"cooldownSeconds\":60},\"deletionPolicy\":\"Delete\"}";
      default -> "{\"entity\":\"order\",\"onFailure\":\"Compensate\",\"queueType\":\"classic\",\"deletionPolicy\":"
          + "\"Delete\",\"steps\":[{\"name\":\"a\",\"service\":\"fz-base\",\"command\":\"work\",\"action\":\"work\","
          + "\"timeout\":\"30s\",\"onTimeout\":\"Redispatch\",\"maxDispatches\":3,\"compensate\":\"undo\"}]}";
    };
    try {
      ObjectNode r = Json.MAPPER.createObjectNode();
      r.put("apiVersion", "baton.dev/v1alpha1");
      r.put("kind", kind);
      r.putObject("metadata").put("namespace", NS);
      r.set("spec", Json.MAPPER.readTree(spec));
      return r;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every schema-forbidden variant of every field that the base resource of {@code kind} has. */
  static List<Variant> schemaVariants(String kind) {
    JsonNode crd = CommittedCrds.read(CommittedCrds.CRD_FILES.stream()
        .filter(f -> f.startsWith(PLURALS.get(kind))).findFirst().orElseThrow());
    JsonNode schema = crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec");
    List<Variant> out = new ArrayList<>();
    walk(kind, schema, List.of("spec"), out);
    return out;
  }

  private static void walk(String kind, JsonNode schema, List<Object> path, List<Variant> out) {
    JsonNode value = at(base(kind), path);
    if (value == null) {
      return;
    }
    String p = render(path);
    String type = schema.path("type").asText();
    mutate(kind, path, p + ": wrong type", switch (type) {
      case "string" -> Json.MAPPER.getNodeFactory().numberNode(12345);
      case "integer", "number" -> Json.MAPPER.getNodeFactory().textNode("twelve");
      case "boolean" -> Json.MAPPER.getNodeFactory().textNode("yes");
      case "array" -> Json.MAPPER.getNodeFactory().textNode("not-a-list");
      default -> Json.MAPPER.getNodeFactory().textNode("not-an-object");
    }, out);
    if (schema.has("pattern")) {
      mutate(kind, path, p + ": breaks its pattern", Json.MAPPER.getNodeFactory().textNode("Not A.Valid_Value!"), out);
    }
    if (schema.has("enum")) {
      mutate(kind, path, p + ": not in its enum", Json.MAPPER.getNodeFactory().textNode("NoSuchValue"), out);
    }
    if (schema.has("minimum")) {
      mutate(kind, path, p + ": below its minimum", Json.MAPPER.getNodeFactory().numberNode(
          schema.get("minimum").asLong() - 1), out);
    }
    if (schema.has("maximum")) {
      mutate(kind, path, p + ": above its maximum", Json.MAPPER.getNodeFactory().numberNode(
          schema.get("maximum").asLong() + 1), out);
    }
    if (schema.has("maxItems") && value.isArray() && value.size() > 0) {
      ArrayNode many = Json.MAPPER.createArrayNode();
      for (int i = 0; i <= schema.get("maxItems").asInt(); i++) {
        many.add(value.get(0).deepCopy());
      }
      mutate(kind, path, p + ": more than maxItems", many, out);
    }
    if (schema.has("minItems")) {
      mutate(kind, path, p + ": fewer than minItems", Json.MAPPER.createArrayNode(), out);
    }
    if ("object".equals(type) && schema.has("properties")) {
      List<Object> unknownPath = new ArrayList<>(path);
      unknownPath.add("bogusField");
      mutate(kind, unknownPath, p + ": unknown field bogusField", Json.MAPPER.getNodeFactory().numberNode(1), out);
      for (JsonNode required : schema.path("required")) {
        List<Object> r = new ArrayList<>(path);
        r.add(required.asText());
        out.add(variant(kind, p + ": required " + required.asText() + " missing", res -> remove(res, r)));
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = schema.get("properties").fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getKey().equals("resources") || e.getKey().equals("valueFrom")) {
          continue; // Kubernetes' own types: the API server checks them, not Baton's schema
        }
        List<Object> child = new ArrayList<>(path);
        child.add(e.getKey());
        walk(kind, e.getValue(), child, out);
      }
    }
    if ("array".equals(type) && schema.has("items") && value.isArray() && value.size() > 0) {
      List<Object> first = new ArrayList<>(path);
      first.add(0);
      walk(kind, schema.get("items"), first, out);
    }
  }

  /** What only the CRDs' CEL rules and list-map keys forbid: the dev API refuses them, as a real API server does. */
  static List<Variant> celVariants() {
    List<Variant> out = new ArrayList<>();
    out.add(variant("RetryPolicy", "CEL: maxAttempts 3 without delays", r -> spec(r).remove("delays")));
    out.add(variant("RetryPolicy", "CEL: maxAttempts 3 with an empty staircase", r -> spec(r).putArray("delays")));
    out.add(variant("WorkerService", "CEL: minReplicas above maxReplicas",
        r -> ((ObjectNode) spec(r).get("autoscaling")).put("minReplicas", 5).put("maxReplicas", 2)));
    for (String reserved : List.of("dlx", "retry", "orchestrator")) {
      out.add(variant("WorkerService", "CEL: reserved service name " + reserved, r -> spec(r).put("service", reserved)));
    }
    out.add(variant("WorkerService", "CEL: duplicate command names",
        r -> ((ArrayNode) spec(r).get("commands")).add(Json.MAPPER.createObjectNode().put("name", "work"))));
    out.add(variant("WorkerService", "CEL: duplicate subscription names",
        r -> ((ArrayNode) spec(r).get("subscriptions")).add(spec(r).get("subscriptions").get(0).deepCopy())));
    out.add(variant("WorkerService", "CEL: a subscription named like a command",
        r -> ((ObjectNode) spec(r).get("subscriptions").get(0)).put("name", "work")));
    out.add(variant("Workflow", "CEL: duplicate step names",
        r -> ((ArrayNode) spec(r).get("steps")).add(spec(r).get("steps").get(0).deepCopy())));
    return out;
  }

  @Test
  void fuzzedResourcesAreRefusedByTheSchemaOrEndAsConditionsAndTheOperatorStaysCalm() throws Exception {
    create(variant("RetryPolicy", "the policy the others use", r -> { }), "fuzz-policy");
    create(variant("WorkerService", "the service the others refer to", r -> { }), "fz-base");
    List<Variant> variants = new ArrayList<>();
    for (String kind : List.of("RetryPolicy", "WorkerService", "Workflow")) {
      variants.addAll(schemaVariants(kind));
    }
    List<Variant> cel = celVariants();
    variants.addAll(cel);
    assertThat(variants.size()).as("variants generated from the CRDs").isGreaterThanOrEqualTo(100);

    CrdSchemaValidator validator = CrdSchemaValidator.fromClasspath();
    Map<String, Variant> accepted = new LinkedHashMap<>();
    Map<String, Integer> outcomes = new TreeMap<>();
    int i = 0;
    for (Variant v : variants) {
      String name = "fz-" + (i++);
      List<String> schemaErrors = validator.validate(named(v, name));
      HttpResponse<String> r = create(v, name);
      if (cel.contains(v)) {
        assertThat(r.statusCode()).as(v.what() + " refused by the dev API's CEL admission: " + r.body()).isEqualTo(422);
        assertThat(r.body()).as(v.what()).contains("is invalid");
        outcomes.merge("refused by CEL or list-map admission (422)", 1, Integer::sum);
      } else if (r.statusCode() == 201) {
        assertThat(schemaErrors).as(v.what() + " accepted by the dev API but refused by the schema").isEmpty();
        accepted.put(name, v);
      } else {
        assertThat(r.statusCode()).as(v.what() + ": " + r.body()).isEqualTo(422);
        assertThat(schemaErrors).as(v.what() + " refused by the dev API, so the schema refuses it").isNotEmpty();
        outcomes.merge("refused by schema admission (422)", 1, Integer::sum);
      }
    }
    assertThat(accepted.values()).as("no CEL-only variant is stored").doesNotContainAnyElementsOf(cel);

    // every accepted variant gets a Ready condition with a reason (and a message when False)
    Map<String, String> reasons = new LinkedHashMap<>();
    boolean all = Wait.until(Duration.ofSeconds(90), () -> {
      for (Map.Entry<String, Variant> e : accepted.entrySet()) {
        if (!reasons.containsKey(e.getKey())) {
          JsonNode ready = readyCondition(e.getValue().kind(), e.getKey());
          if (ready != null && !ready.path("reason").asText().isEmpty()
              && ("True".equals(ready.path("status").asText()) || !ready.path("message").asText().isEmpty())) {
            reasons.put(e.getKey(), ready.path("status").asText() + "/" + ready.path("reason").asText());
          }
        }
      }
      return reasons.size() == accepted.size();
    });
    accepted.keySet().stream().filter(n -> !reasons.containsKey(n))
        .forEach(n -> System.out.println("FUZZ no condition for " + n + ": " + accepted.get(n).what()));
    assertThat(all).as("every accepted variant has a Ready condition").isTrue();
    reasons.values().forEach(r -> outcomes.merge("condition Ready=" + r, 1, Integer::sum));

    // calm: over several resyncs, no status churn and no ERROR line
    Map<String, String> versions = versions(accepted);
    long errorsBefore = errors();
    Wait.sleep(8_000);
    assertThat(versions(accepted)).as("no status churn over two resyncs").isEqualTo(versions);
    assertThat(errors() - errorsBefore).as("no ERROR lines while calm").isZero();
    // and the operator still works
    create(variant("WorkerService", "a good one after the fuzz", r -> { }), "fz-after");
    assertThat(Wait.until(Duration.ofSeconds(30), () -> {
      JsonNode c = readyCondition("WorkerService", "fz-after");
      return c != null && c.path("reason").asText().length() > 0;
    })).isTrue();
    System.out.println("FUZZ " + variants.size() + " variants (" + cel.size() + " CEL-only): " + outcomes);
  }

  // --- helpers -----------------------------------------------------------------------------------------------------

  /** The variant as sent: named, and with a service name of its own (unless the variant is about the name). */
  static ObjectNode named(Variant v, String name) {
    ObjectNode r = v.resource().deepCopy();
    ((ObjectNode) r.get("metadata")).put("name", name);
    JsonNode spec = r.get("spec");
    if (spec instanceof ObjectNode o && o.path("service").asText().equals("SERVICE")) {
      o.put("service", name);
    }
    return r;
  }

  static HttpResponse<String> create(Variant v, String name) throws Exception {
    ObjectNode r = named(v, name);
    return http.send(HttpRequest.newBuilder(URI.create(api.url() + "/apis/baton.dev/v1alpha1/namespaces/" + NS + "/"
        + PLURALS.get(v.kind()) + "?fieldValidation=Strict")).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(r.toString())).build(), HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode readyCondition(String kind, String name) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api.url()
          + "/apis/baton.dev/v1alpha1/namespaces/" + NS + "/" + PLURALS.get(kind) + "/" + name)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      for (JsonNode c : Json.MAPPER.readTree(r.body()).path("status").path("conditions")) {
        if ("Ready".equals(c.path("type").asText())) {
          return c;
        }
      }
      return null;
    } catch (Exception e) {
      return null;
    }
  }

  static Map<String, String> versions(Map<String, Variant> resources) throws Exception {
    Map<String, String> v = new TreeMap<>();
    for (Map.Entry<String, Variant> e : resources.entrySet()) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api.url()
          + "/apis/baton.dev/v1alpha1/namespaces/" + NS + "/" + PLURALS.get(e.getValue().kind()) + "/" + e.getKey()))
          .GET().build(), HttpResponse.BodyHandlers.ofString());
      v.put(e.getKey(), Json.MAPPER.readTree(r.body()).path("metadata").path("resourceVersion").asText());
    }
    return v;
  }

  static long errors() {
    synchronized (logs) {
      return logs.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR)).count();
    }
  }

  static Variant variant(String kind, String what, Consumer<ObjectNode> change) {
    ObjectNode r = base(kind);
    change.accept(r);
    return new Variant(kind, null, what, r);
  }

  private static void mutate(String kind, List<Object> path, String what, JsonNode value, List<Variant> out) {
    out.add(variant(kind, what, r -> set(r, path, value)));
  }

  static ObjectNode spec(ObjectNode r) {
    return (ObjectNode) r.get("spec");
  }

  static JsonNode at(JsonNode node, List<Object> path) {
    JsonNode n = node;
    for (Object p : path) {
      n = p instanceof Integer i ? n.get(i) : n.get((String) p);
      if (n == null) {
        return null;
      }
    }
    return n;
  }

  static void set(ObjectNode root, List<Object> path, JsonNode value) {
    JsonNode parent = at(root, path.subList(0, path.size() - 1));
    Object last = path.get(path.size() - 1);
    if (last instanceof Integer i) {
      ((ArrayNode) parent).set(i, value);
    } else {
      ((ObjectNode) parent).set((String) last, value);
    }
  }

  static void remove(ObjectNode root, List<Object> path) {
    JsonNode parent = at(root, path.subList(0, path.size() - 1));
    Object last = path.get(path.size() - 1);
    if (parent instanceof ObjectNode o) {
      o.remove((String) last);
    }
  }

  static String render(List<Object> path) {
    StringBuilder sb = new StringBuilder();
    for (Object p : path) {
      if (p instanceof Integer i) {
        sb.append('[').append(i).append(']');
      } else {
        sb.append(sb.isEmpty() ? "" : ".").append(p);
      }
    }
    return sb.toString();
  }
}
