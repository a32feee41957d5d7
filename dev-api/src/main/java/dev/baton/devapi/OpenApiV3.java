package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * OpenAPI v3 documents ({@code /openapi/v3} and {@code /openapi/v3/<api|apis/group>/<version>}), just enough for
 * kubectl:
 *
 * <ul>
 *   <li>Each kind's PATCH operation declares the {@code fieldValidation} query parameter, so {@code kubectl apply}
 *       leaves validation to the server (which checks Baton kinds against their CRD schema) instead of downloading
 *       the protobuf OpenAPI v2 document for client-side validation, which the dev API does not serve.</li>
 *   <li>PATCH of built-in kinds does not list strategic merge patch, so kubectl computes that patch from its own
 *       compiled-in types rather than from schemas this document does not carry.</li>
 *   <li>Baton kinds carry their CRD schema, so {@code kubectl explain workflow.spec.steps} works.</li>
 * </ul>
 */
final class OpenApiV3 {

  private static final String PREFIX = "/openapi/v3";

  private final KnownResources resources;

  OpenApiV3(KnownResources resources) {
    this.resources = resources;
  }

  /** The document for an {@code /openapi/v3...} path, or null when there is none. */
  JsonNode document(String path) {
    String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    if (bare.equals(PREFIX) || bare.equals(PREFIX + "/")) {
      return index();
    }
    if (!bare.startsWith(PREFIX + "/")) {
      return null;
    }
    ApiPath p = ApiPath.parse(bare.substring(PREFIX.length()));
    if (p.group() == null || p.version() == null || p.plural() != null) {
      return null;
    }
    List<ResourceType> types = resources.inGroupVersion(p.group(), p.version());
    return types.isEmpty() ? null : groupVersion(types);
  }

  private JsonNode index() {
    ObjectNode root = Json.object();
    ObjectNode paths = root.putObject("paths");
    resources.all().stream().map(t -> t.group().isEmpty() ? "api/" + t.version() : "apis/" + t.groupVersion())
        .distinct()
        .forEach(gv -> {
          ApiPath p = ApiPath.parse("/" + gv);
          String hash = hash(groupVersion(resources.inGroupVersion(p.group(), p.version())));
          paths.putObject(gv).put("serverRelativeURL", PREFIX + "/" + gv + "?hash=" + hash);
        });
    return root;
  }

  private static JsonNode groupVersion(List<ResourceType> types) {
    ObjectNode doc = Json.object();
    doc.put("openapi", "3.0.0");
    doc.putObject("info").put("title", "Baton dev API").put("version", Discovery.GIT_VERSION);
    ObjectNode paths = doc.putObject("paths");
    ObjectNode schemas = doc.putObject("components").putObject("schemas");
    for (ResourceType t : types) {
      if (!t.verbs().contains("patch")) {
        continue; // reviews are only created: nothing to apply or explain
      }
      String base = (t.group().isEmpty() ? "/api/" : "/apis/") + t.groupVersion()
          + (t.namespaced() ? "/namespaces/{namespace}/" : "/") + t.plural() + "/{name}";
      ObjectNode item = paths.putObject(base);
      ObjectNode get = item.putObject("get");
      gvk(get, t);
      get.put("x-kubernetes-action", "get");
      get.putObject("responses").putObject("200").put("description", "OK");
      ObjectNode patch = item.putObject("patch");
      gvk(patch, t);
      patch.put("x-kubernetes-action", "patch");
      ArrayNode params = patch.putArray("parameters");
      for (String q : List.of("dryRun", "fieldManager", "fieldValidation", "force")) {
        params.addObject().put("name", q).put("in", "query").putObject("schema").put("type", "string");
      }
      ObjectNode content = patch.putObject("requestBody").putObject("content");
      for (String type : List.of("application/json-patch+json", "application/merge-patch+json")) {
        content.putObject(type).putObject("schema").put("type", "object");
      }
      patch.putObject("responses").putObject("200").put("description", "OK");
      JsonNode schema = t.crdVersion().path("schema").path("openAPIV3Schema");
      if (schema.isObject()) {
        schemas.set(schemaName(t), kindSchema(t, (ObjectNode) schema.deepCopy()));
      }
    }
    return doc;
  }

  private static void gvk(ObjectNode operation, ResourceType t) {
    operation.putObject("x-kubernetes-group-version-kind")
        .put("group", t.group()).put("version", t.version()).put("kind", t.kind());
  }

  /** Reverse-DNS schema name as the API server writes it: {@code dev.baton.v1alpha1.Workflow}. */
  private static String schemaName(ResourceType t) {
    String[] parts = t.group().split("\\.");
    StringBuilder reversed = new StringBuilder();
    for (int i = parts.length - 1; i >= 0; i--) {
      reversed.append(parts[i]).append('.');
    }
    return reversed + t.version() + "." + t.kind();
  }

  private static ObjectNode kindSchema(ResourceType t, ObjectNode schema) {
    ObjectNode properties = schema.with("properties");
    properties.putObject("apiVersion").put("type", "string")
        .put("description", "APIVersion defines the versioned schema of this representation of an object.");
    properties.putObject("kind").put("type", "string")
        .put("description", "Kind is a string value representing the REST resource this object represents.");
    properties.putObject("metadata").put("type", "object")
        .put("description", "Standard object's metadata: name, namespace, labels, annotations.");
    if (!schema.has("description") && t.crd() != null) {
      schema.put("description", t.kind() + " (" + t.groupVersion() + ")");
    }
    ArrayNode gvks = schema.putArray("x-kubernetes-group-version-kind");
    gvks.addObject().put("group", t.group()).put("kind", t.kind()).put("version", t.version());
    return schema;
  }

  private static String hash(JsonNode doc) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(Json.write(doc).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().withUpperCase().formatHex(digest, 0, 32);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
