package dev.baton.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.api.v1alpha1.WorkerServiceStatus;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.api.model.ConfigMapList;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The indexed store answers as fabric8's own does: the same requests through a client against both give the same
 * transcript, and a named look-up among thousands of objects never falls back to matching every one of them.
 */
class IndexedCrudDispatcherTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void answersEveryRequestAsFabric8sOwnStoreDoes() {
    List<String> stock = transcriptOn(new KubernetesCrudDispatcher(List.of()));
    List<String> indexed = transcriptOn(new IndexedCrudDispatcher());

    assertThat(indexed).containsExactlyElementsOf(stock);
    assertThat(stock).as("the transcript shows objects found, missing and listed, not only failures")
        .anyMatch(line -> line.startsWith("get a/one -> {") && line.contains("merged"))
        .contains("get a/missing -> null", "get a/two after its delete -> null", "get a/held once released -> null")
        .anyMatch(line -> line.startsWith("get the WorkerService -> {") && line.contains("\"service\":\"orders\""))
        .anyMatch(line -> line.startsWith("list by label -> {") && line.contains("\"namespace\":\"b\""))
        .anyMatch(line -> line.startsWith("create a/one again -> 409"))
        .anyMatch(line -> line.startsWith("GET /api/v1/configmaps/one -> 200"));
  }

  @Test
  void findsANamedObjectAmongThousandsWithoutMatchingEveryStoredObject() {
    IndexedCrudDispatcher store = new IndexedCrudDispatcher();
    try (MockKubernetes k = MockKubernetes.startOn(store, List.of())) {
      for (int i = 0; i < 3_000; i++) {
        configMaps(k.client(), "a").resource(configMap("cm-" + i, "x")).create();
      }
      IndexedCrudDispatcher.Lookups afterCreating = store.lookups();

      ConfigMap found = configMaps(k.client(), "a").withName("cm-1234").get();
      configMaps(k.client(), "a").withName("cm-2345")
          .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"k\":\"patched\"}}");
      ConfigMap missing = configMaps(k.client(), "a").withName("cm-3000").get();

      assertThat(found.getMetadata().getName()).isEqualTo("cm-1234");
      assertThat(configMaps(k.client(), "a").withName("cm-2345").get().getData()).containsEntry("k", "patched");
      assertThat(missing).isNull();
      assertThat(afterCreating.indexed()).as("each create looks for an existing object first")
          .isGreaterThanOrEqualTo(3_000);
      assertThat(store.lookups().indexed()).isGreaterThan(afterCreating.indexed());
      assertThat(store.lookups().scanned()).as("named look-ups that matched the query against every stored object")
          .isZero();
    }
  }

  @Test
  void leavesAQueryThatMoreThanOneObjectMatchesToFabric8sScan() throws Exception {
    IndexedCrudDispatcher store = new IndexedCrudDispatcher();
    try (MockKubernetes k = MockKubernetes.startOn(store, List.of())) {
      configMaps(k.client(), "a").resource(configMap("one", "x")).create();
      configMaps(k.client(), "b").resource(configMap("one", "x")).create();

      String answer = raw(k, "/api/v1/configmaps/one");

      assertThat(answer).as("the store's first, whichever namespace").startsWith("200 {");
      assertThat(store.lookups().scanned()).isEqualTo(1);
    }
  }

  @Test
  void forgetsEveryObjectOnAReset() {
    IndexedCrudDispatcher store = new IndexedCrudDispatcher();
    try (MockKubernetes k = MockKubernetes.startOn(store, List.of())) {
      configMaps(k.client(), "a").resource(configMap("one", "x")).create();

      store.reset();

      assertThat(configMaps(k.client(), "a").withName("one").get()).isNull();
      assertThat(configMaps(k.client(), "a").resource(configMap("one", "y")).create().getMetadata().getLabels())
          .as("created afresh, not refused as existing").containsEntry("app", "y");
      assertThat(store.lookups().scanned()).isZero();
    }
  }

  /** What the store answers to a fixed sequence of requests, without what differs between runs (uids, times). */
  private static List<String> transcriptOn(KubernetesCrudDispatcher store) {
    List<String> lines = new ArrayList<>();
    try (MockKubernetes k = MockKubernetes.startOn(store, MockKubernetes.ALL_CRDS)) {
      KubernetesClient c = k.client();
      note(lines, "create a/one", () -> configMaps(c, "a").resource(configMap("one", "x")).create());
      note(lines, "create b/one", () -> configMaps(c, "b").resource(configMap("one", "x")).create());
      note(lines, "create a/two", () -> configMaps(c, "a").resource(configMap("two", "y")).create());
      note(lines, "create a/one again", () -> configMaps(c, "a").resource(configMap("one", "x")).create());
      note(lines, "get a/missing", () -> configMaps(c, "a").withName("missing").get());
      note(lines, "merge patch a/one", () -> configMaps(c, "a").withName("one")
          .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"k\":\"merged\"}}"));
      note(lines, "JSON patch a/two", () -> configMaps(c, "a").withName("two")
          .patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"add\",\"path\":\"/data/extra\",\"value\":\"1\"}]"));
      note(lines, "update b/one", () -> {
        ConfigMap one = configMaps(c, "b").withName("one").get();
        one.getData().put("k", "updated");
        return configMaps(c, "b").resource(one).update();
      });
      note(lines, "get a/one", () -> configMaps(c, "a").withName("one").get());
      note(lines, "get b/one", () -> configMaps(c, "b").withName("one").get());

      note(lines, "create the WorkerService", () -> workerServices(c).resource(workerService()).create());
      note(lines, "patch its status", () -> {
        WorkerService ws = workerServices(c).withName("orders").get();
        ws.setStatus(new WorkerServiceStatus());
        ws.getStatus().setService("orders");
        return workerServices(c).resource(ws).patchStatus();
      });
      note(lines, "get the WorkerService", () -> workerServices(c).withName("orders").get());

      note(lines, "delete a/two", () -> configMaps(c, "a").withName("two").delete());
      note(lines, "get a/two after its delete", () -> configMaps(c, "a").withName("two").get());
      note(lines, "create a/held", () -> configMaps(c, "a").resource(new ConfigMapBuilder(configMap("held", "x"))
          .editMetadata().addToFinalizers("baton.dev/test").endMetadata().build()).create());
      note(lines, "delete a/held", () -> configMaps(c, "a").withName("held").delete());
      note(lines, "get a/held while its finalizer holds it", () -> configMaps(c, "a").withName("held").get());
      note(lines, "release a/held", () -> configMaps(c, "a").withName("held")
          .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}"));
      note(lines, "get a/held once released", () -> configMaps(c, "a").withName("held").get());

      note(lines, "list a", () -> configMaps(c, "a").list());
      note(lines, "list by label", () -> c.configMaps().inAnyNamespace().withLabel("app", "x").list());
      note(lines, "create namespace c", () -> c.namespaces().resource(new NamespaceBuilder()
          .withNewMetadata().withName("c").endMetadata().build()).create());
      note(lines, "get namespace c", () -> c.namespaces().withName("c").get());
      note(lines, "get a CRD", () -> c.apiextensions().v1().customResourceDefinitions()
          .withName("workerservices.baton.dev").get());
      for (String path : List.of("/api/v1/configmaps/one", "/api/v1/namespaces/a/configmaps/one/status",
          "/api/v1/namespaces/a/configmaps?labelSelector=app%3Dy")) {
        note(lines, "GET " + path, () -> raw(k, path));
      }
    }
    return lines;
  }

  private static void note(List<String> lines, String step, Supplier<Object> request) {
    String outcome;
    try {
      Object answer = request.get();
      outcome = answer instanceof String s ? s : answer == null ? "null" : comparable(JSON.valueToTree(answer));
    } catch (KubernetesClientException e) {
      outcome = e.getCode() + " " + e.getStatus().getMessage();
    }
    lines.add(step + " -> " + outcome);
  }

  private static String raw(MockKubernetes k, String path) {
    try {
      HttpResponse<String> response = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(k.server().url(path))).build(), HttpResponse.BodyHandlers.ofString());
      return response.statusCode() + " " + (response.body().isEmpty() ? "" : comparable(JSON.readTree(response.body())));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The answer without what is made afresh on each run: uids and timestamps. */
  private static String comparable(JsonNode answer) {
    answer.findParents("uid").forEach(p -> ((ObjectNode) p).remove("uid"));
    answer.findParents("creationTimestamp").forEach(p -> ((ObjectNode) p).remove("creationTimestamp"));
    answer.findParents("deletionTimestamp").forEach(p -> ((ObjectNode) p).put("deletionTimestamp", "set"));
    return answer.toString();
  }

  private static NonNamespaceOperation<ConfigMap, ConfigMapList, Resource<ConfigMap>> configMaps(KubernetesClient c,
      String namespace) {
    return c.configMaps().inNamespace(namespace);
  }

  private static ConfigMap configMap(String name, String app) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).addToLabels("app", app).endMetadata()
        .addToData("k", "v").build();
  }

  private static NonNamespaceOperation<WorkerService, ?, Resource<WorkerService>> workerServices(KubernetesClient c) {
    MixedOperation<WorkerService, ?, Resource<WorkerService>> all = c.resources(WorkerService.class);
    return all.inNamespace("a");
  }

  private static WorkerService workerService() {
    WorkerService ws = new WorkerService();
    ws.setMetadata(new ObjectMetaBuilder().withName("orders").build());
    ws.setSpec(new WorkerServiceSpec());
    return ws;
  }
}
