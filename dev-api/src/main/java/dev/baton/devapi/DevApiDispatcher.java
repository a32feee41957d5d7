package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.devapi.cel.RuleBudget;
import dev.baton.devapi.protobuf.KubeProtobuf;
import dev.baton.devapi.schema.StructuralPruning;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonDiff;
import io.fabric8.zjsonpatch.JsonPatch;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fabric8 CRUD store with what kubectl needs in front of it: discovery and OpenAPI documents, Table answers for
 * {@code kubectl get}, schema and CEL admission for custom resources (and the CEL cost budget for CRDs), custom resources
 * stored pruned and defaulted as an API server stores them, strategic merge patches, field selectors, Status bodies
 * for errors, a feed of changes for watches over plain HTTP ({@link WatchHub}), and ServiceAccount tokens, token
 * and access reviews ({@link AuthEndpoints}).
 */
final class DevApiDispatcher extends KubernetesCrudDispatcher {

  private static final Logger LOG = LoggerFactory.getLogger(DevApiDispatcher.class);
  private static final String CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  private static final String JSON_PATCH = "application/json-patch+json";

  private final KnownResources known = new KnownResources(this::storedCrds);
  private final Discovery discovery = new Discovery(known);
  private final OpenApiV3 openApi = new OpenApiV3(known);
  private final SchemaAdmission admission = new SchemaAdmission();
  private final WatchHub watches;
  private final Clock clock;
  private final AuthEndpoints auth;
  /** Orders writes with the events they produce, so watchers see resource versions ascending. */
  private final Object writeOrder = new Object();

  DevApiDispatcher(WatchHub watches, Clock clock) {
    this.watches = watches;
    this.clock = clock;
    this.auth = new AuthEndpoints(clock, this::read);
  }

  KnownResources knownResources() {
    return known;
  }

  @Override
  public MockResponse dispatch(RecordedRequest received) {
    ApiPath path = ApiPath.parse(received.getPath());
    try {
      RecordedRequest request = asJson(received);
      Optional<AuthEndpoints.Answer> answer = auth.answer(request, path);
      if (answer.isPresent()) {
        return status(answer.get().code(), answer.get().body());
      }
      return switch (request.method()) {
        case GET -> get(request, path);
        case POST, PUT, PATCH -> write(request, path);
        case DELETE -> delete(request, path);
        default -> status(ApiStatus.methodNotAllowed("the dev API does not serve " + request.method()));
      };
    } catch (IllegalArgumentException e) {
      return status(ApiStatus.badRequest(e.getMessage()));
    } catch (RuntimeException e) {
      LOG.warn("dev API failed on {} {}", received.method(), received.getPath(), e);
      return status(ApiStatus.failure(500, "InternalError", "dev API: " + e));
    }
  }

  /**
   * kubectl's imperative commands send built-in kinds as protobuf: those {@link KubeProtobuf} reads (namespaces,
   * ServiceAccounts, RBAC objects, token requests, access reviews) go on as JSON; others are refused in {@link #write}.
   */
  private static RecordedRequest asJson(RecordedRequest request) {
    if (!KubeProtobuf.is(request.getHeader("Content-Type")) || request.getBody() == null) {
      return request;
    }
    return KubeProtobuf.toJson(request.getBody().getBytes())
        .map(json -> new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(),
            withContentType(request.getHeaders(), "application/json"),
            new Buffer(Json.write(json).getBytes(StandardCharsets.UTF_8))))
        .orElse(request);
  }

  // ---- reads ---------------------------------------------------------------------------------------------------

  private MockResponse get(RecordedRequest request, ApiPath path) {
    String raw = request.getPath();
    JsonNode document = discovery.document(raw);
    if (document == null && raw.startsWith("/openapi/v3")) {
      document = openApi.document(raw);
    }
    if (document != null) {
      return ok(200, document);
    }
    if (!path.isResource()) {
      return status(ApiStatus.notFound(null, null, null));
    }
    if (path.isWatch()) {
      // fabric8 clients (the operator, the runtime) watch over WebSocket: the CRUD store serves those.
      return super.handleGet(raw);
    }
    Optional<ResourceType> type = known.find(path.group(), path.version(), path.plural());
    FieldSelector selector = FieldSelector.parse(path.param("fieldSelector"));
    MockResponse stored = super.handleGet(selector.needsFiltering() ? withFieldSelector(raw, selector.forStore()) : raw);
    if (stored.code() == 404) {
      return status(ApiStatus.notFound(path.plural(), path.group(), path.name()));
    }
    JsonNode body = body(stored);
    if (selector.needsFiltering() && body.path("items").isArray()) {
      ArrayNode kept = Json.MAPPER.createArrayNode();
      body.path("items").forEach(item -> {
        if (selector.matches(item)) {
          kept.add(item);
        }
      });
      ((ObjectNode) body).set("items", kept);
    }
    if (type.isPresent() && "List".equals(body.path("kind").asText())) {
      // typed clients (kubectl describe reading Events) decode "EventList", not the store's generic "List"
      ((ObjectNode) body).put("kind", type.get().kind() + "List").put("apiVersion", type.get().groupVersion());
    }
    if (TableRenderer.wanted(request.getHeader("Accept")) && type.isPresent()) {
      body = TableRenderer.render(PrinterColumns.forType(type.get()), body, path.param("includeObject"), clock.instant());
    }
    return ok(200, body);
  }

  /** Reads a stored object or list; null when there is none. */
  JsonNode read(String path) {
    MockResponse r = super.handleGet(path);
    return r.code() == 200 ? body(r) : null;
  }

  /** Runs {@code action} with no write in between, e.g. to list and subscribe to changes as one step. */
  <T> T withoutConcurrentWrites(java.util.function.Supplier<T> action) {
    synchronized (writeOrder) {
      return action.get();
    }
  }

  private List<JsonNode> storedCrds() {
    JsonNode list = read(CRDS);
    List<JsonNode> crds = new ArrayList<>();
    if (list != null) {
      list.path("items").forEach(crds::add);
    }
    return crds;
  }

  // ---- writes --------------------------------------------------------------------------------------------------

  private MockResponse write(RecordedRequest request, ApiPath path) {
    if (!path.isResource()) {
      return status(ApiStatus.notFound(null, null, null));
    }
    String contentType = request.getHeader("Content-Type");
    if (contentType != null && contentType.startsWith("application/apply-patch")) {
      return status(ApiStatus.unsupportedMediaType("server-side apply is not supported by the Baton dev API:"
          + " use kubectl apply without --server-side"));
    }
    if (contentType != null && contentType.contains("protobuf")) {
      // kubectl's imperative commands (create secret, create deployment) send protobuf; the store speaks JSON.
      return status(ApiStatus.unsupportedMediaType("the Baton dev API accepts JSON only, not " + contentType
          + " (except from kubectl create namespace|serviceaccount|role|clusterrole|rolebinding|clusterrolebinding"
          + "|token): write the object as YAML and use kubectl apply -f (e.g. kubectl create secret ..."
          + " --dry-run=client -o yaml | kubectl apply -f -)"));
    }
    Optional<ResourceType> type = known.find(path.group(), path.version(), path.plural());
    String objectPath = objectPath(request.getPath(), path);
    synchronized (writeOrder) {
      JsonNode before = path.name() == null ? null : read(objectPath);
      String body = request.getUtf8Body();
      if (request.method() == HttpMethod.PATCH && before == null) {
        return status(ApiStatus.notFound(path.plural(), path.group(), path.name()));
      }
      boolean patch = request.method() == HttpMethod.PATCH;
      JsonNode result = patch ? patched(before, Json.parse(body), contentType) : Json.parse(body);
      if (CRDS.equals(collectionPath(objectPath))) {
        List<ApiStatus.Cause> causes = RuleBudget.check(result).stream()
            .map(v -> new ApiStatus.Cause(v.field(), v.message())).toList();
        if (!causes.isEmpty()) {
          return status(ApiStatus.invalid("CustomResourceDefinition", "apiextensions.k8s.io",
              result.path("metadata").path("name").asText(""), causes));
        }
      }
      List<String> warnings = List.of();
      if (type.isPresent()) {
        List<ApiStatus.Cause> causes = admission.check(type.get(), result, request.method() == HttpMethod.POST ? null
            : before, "Strict".equals(path.param("fieldValidation")));
        if (!causes.isEmpty()) {
          String name = result.path("metadata").path("name").asText(path.name() == null ? "" : path.name());
          return status(ApiStatus.invalid(type.get().kind(), type.get().group(), name, causes));
        }
        if (type.get().crd() != null) {
          StructuralPruning.Pruned admitted = admission.admit(type.get(), result);
          result = admitted.object();
          warnings = "Ignore".equals(path.param("fieldValidation")) ? List.of() : admitted.unknownFields();
        }
      }
      if (path.param("dryRun") != null) {
        // kubectl apply --dry-run=server: checked like a real write, stored nowhere
        return warned(ok(patch || request.method() == HttpMethod.PUT ? 200 : 201, result), warnings);
      }
      // The store gets the object as admitted: a create or an update whole, a patch as the exact changes to the stored
      // object (its own merge neither removes keys set to null nor replaces lists, and it would keep what was pruned).
      if (patch) {
        body = Json.write(JsonDiff.asJson(before, result));
        contentType = JSON_PATCH;
      } else if (type.isPresent() && type.get().crd() != null) {
        body = Json.write(result);
      }
      // Without the query: the store decides "is this the status subresource?" by the path's ending.
      String bare = request.getPath().contains("?")
          ? request.getPath().substring(0, request.getPath().indexOf('?')) : request.getPath();
      RecordedRequest forwarded = new RecordedRequest(request.getHttpVersion(), request.method(), bare,
          withContentType(request.getHeaders(), contentType), new Buffer(body.getBytes(StandardCharsets.UTF_8)));
      MockResponse response = switch (request.method()) {
        case POST -> handleCreate(forwarded);
        case PUT -> handleUpdate(forwarded);
        default -> handlePatch(forwarded);
      };
      if (response.code() / 100 == 2) {
        String stored = response.getBody() == null ? "" : response.getBody().readUtf8();
        if (stored.isEmpty()) {
          // a patch that removed the last finalizer of an object being deleted: it is gone
          JsonNode gone = deleted(result);
          watches.publish(WatchHub.Type.DELETED, path, gone);
          return ok(200, gone);
        }
        JsonNode object = Json.parse(stored);
        if (before == null) {
          watches.publish(WatchHub.Type.ADDED, path, object);
        } else if (!resourceVersion(before).equals(resourceVersion(object))) {
          // the store keeps the resource version when nothing changed: no event then, as on a cluster
          watches.publish(WatchHub.Type.MODIFIED, path, object);
        }
        // a real API server answers 200 to PATCH; the store says 202
        return warned(ok(response.code() == 202 ? 200 : response.code(), object), warnings);
      }
      return errorStatus(response, path);
    }
  }

  /** The object after a JSON patch, a JSON merge patch or a strategic merge patch. */
  private static JsonNode patched(JsonNode current, JsonNode patch, String contentType) {
    if (isJsonPatch(contentType)) {
      try {
        return JsonPatch.apply(patch, current);
      } catch (io.fabric8.zjsonpatch.JsonPatchException e) {
        throw new IllegalArgumentException("the JSON patch does not apply: " + e.getMessage(), e);
      }
    }
    if (StrategicMergePatch.is(contentType)) {
      return MergePatch.apply(current, StrategicMergePatch.toMergePatch(current, patch));
    }
    return MergePatch.apply(current, patch);
  }

  private static boolean isJsonPatch(String contentType) {
    return contentType != null && contentType.startsWith(JSON_PATCH);
  }

  private MockResponse delete(RecordedRequest request, ApiPath path) {
    if (!path.isResource() || path.name() == null) {
      return status(ApiStatus.methodNotAllowed("the dev API deletes one object at a time"));
    }
    String objectPath = objectPath(request.getPath(), path);
    synchronized (writeOrder) {
      JsonNode before = read(objectPath);
      if (before == null) {
        return status(ApiStatus.notFound(path.plural(), path.group(), path.name()));
      }
      super.handleDelete(objectPath);
      JsonNode after = read(objectPath);
      if (after != null) {
        // finalizers hold it: marked for deletion until the owner of the finalizer removes it
        watches.publish(WatchHub.Type.MODIFIED, path, after);
        return ok(200, after);
      }
      watches.publish(WatchHub.Type.DELETED, path, deleted(before));
      return ok(200, before);
    }
  }

  /** A deleted object carries a fresh resource version in its DELETED event, as on a cluster. */
  private JsonNode deleted(JsonNode last) {
    ObjectNode copy = last.deepCopy();
    copy.with("metadata").put("resourceVersion", String.valueOf(requestResourceVersion()));
    return copy;
  }

  // ---- helpers -------------------------------------------------------------------------------------------------

  private static String objectPath(String raw, ApiPath path) {
    String bare = raw.contains("?") ? raw.substring(0, raw.indexOf('?')) : raw;
    return path.subresource() == null ? bare : bare.substring(0, bare.lastIndexOf('/'));
  }

  /** {@code /apis/g/v/plural/name} without its name; a collection path stays as it is. */
  private static String collectionPath(String objectPath) {
    return objectPath.substring(0, objectPath.lastIndexOf('/')).equals(CRDS) ? CRDS : objectPath;
  }

  private static String withFieldSelector(String raw, String selector) {
    int q = raw.indexOf('?');
    String bare = q < 0 ? raw : raw.substring(0, q);
    List<String> params = new ArrayList<>();
    if (q >= 0) {
      for (String pair : raw.substring(q + 1).split("&")) {
        if (!pair.startsWith("fieldSelector=") && !pair.isEmpty()) {
          params.add(pair);
        }
      }
    }
    if (selector != null) {
      params.add("fieldSelector=" + URLEncoder.encode(selector, StandardCharsets.UTF_8));
    }
    return params.isEmpty() ? bare : bare + "?" + String.join("&", params);
  }

  private static Headers withContentType(Headers headers, String contentType) {
    Headers.Builder b = headers.newBuilder();
    if (contentType != null) {
      b.removeAll("Content-Type").add("Content-Type", contentType);
    }
    return b.build();
  }

  private MockResponse errorStatus(MockResponse response, ApiPath path) {
    String text = response.getBody() == null ? "" : response.getBody().readUtf8();
    if (response.code() == 404 && text.isBlank()) {
      return status(ApiStatus.notFound(path.plural(), path.group(), path.name()));
    }
    JsonNode body;
    try {
      body = Json.parse(text);
    } catch (IllegalArgumentException e) {
      body = ApiStatus.failure(response.code(), "", text);
    }
    if (body.isObject() && "Status".equals(body.path("kind").asText()) && response.code() == 409
        && body.path("message").asText().endsWith("already exists")) {
      ((ObjectNode) body).put("reason", "AlreadyExists");
    }
    return status(response.code(), body);
  }

  private static String resourceVersion(JsonNode object) {
    return object.path("metadata").path("resourceVersion").asText("");
  }

  private static JsonNode body(MockResponse response) {
    return response.getBody() == null ? Json.object() : Json.parse(response.getBody().readUtf8());
  }

  /**
   * An API server's warnings for the unknown fields it pruned (field validation {@code Warn}, its default): kubectl
   * prints each as {@code Warning: unknown field "spec.colour"}.
   */
  private static MockResponse warned(MockResponse response, List<String> unknownFields) {
    for (String field : unknownFields) {
      response.addHeader("Warning", "299 - \"unknown field \\\"" + field + "\\\"\"");
    }
    return response;
  }

  private static MockResponse ok(int code, JsonNode body) {
    return status(code, body);
  }

  private static MockResponse status(ObjectNode status) {
    return status(status.path("code").asInt(500), status);
  }

  private static MockResponse status(int code, JsonNode body) {
    return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
        .setBody(Json.write(body));
  }
}
