package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import java.util.List;

/**
 * The discovery documents kubectl reads before anything else: {@code /version}, {@code /api}, {@code /apis},
 * {@code /apis/<group>} and the resource lists {@code /api/v1} and {@code /apis/<group>/<version>}.
 *
 * <p>kubectl first asks for aggregated discovery ({@code Accept: application/json;g=apidiscovery.k8s.io;v=v2;...});
 * answering with the legacy documents and {@code Content-Type: application/json} makes client-go fall back to
 * reading each group version, which is all this needs.
 */
final class Discovery {

  /** The Kubernetes version the dev API claims: the one whose API shapes it imitates. */
  static final String GIT_VERSION = "v1.32.0-baton-dev";

  private final KnownResources resources;

  Discovery(KnownResources resources) {
    this.resources = resources;
  }

  /** The document for a discovery path, or null when the path is not one. */
  JsonNode document(String path) {
    ApiPath p = ApiPath.parse(path);
    String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    if (bare.equals("/version") || bare.equals("/version/")) {
      return version();
    }
    if (bare.equals("/apis") || bare.equals("/apis/")) {
      return groupList();
    }
    if (p.group() == null || p.plural() != null) {
      return null;
    }
    if (p.group().isEmpty() && p.version() == null) {
      return coreVersions();
    }
    if (!p.group().isEmpty() && p.version() == null) {
      return groupOrNull(p.group());
    }
    if (p.version() == null) {
      return null;
    }
    return resourceList(p.group(), p.version());
  }

  /** {@code /apis}: every group and its versions. */
  JsonNode groupList() {
    ObjectNode list = Documents.typed("v1", "APIGroupList");
    ArrayNode groups = list.putArray("groups");
    for (String group : resources.groups()) {
      if (!group.isEmpty()) {
        groups.add(group(group));
      }
    }
    return list;
  }

  static JsonNode version() {
    ObjectNode v = Json.object();
    v.put("major", "1");
    v.put("minor", "32");
    v.put("gitVersion", GIT_VERSION);
    v.put("gitCommit", "0000000000000000000000000000000000000000");
    v.put("gitTreeState", "clean");
    v.put("buildDate", "2024-12-11T00:00:00Z");
    v.put("goVersion", "go1.23.4");
    v.put("compiler", "gc");
    v.put("platform", "linux/amd64");
    return v;
  }

  private static JsonNode coreVersions() {
    ObjectNode v = Documents.typed("v1", "APIVersions");
    v.set("versions", Json.array(List.of("v1")));
    ObjectNode cidr = v.putArray("serverAddressByClientCIDRs").addObject();
    cidr.put("clientCIDR", "0.0.0.0/0");
    cidr.put("serverAddress", "127.0.0.1");
    return v;
  }

  private JsonNode groupOrNull(String group) {
    return resources.groups().contains(group) ? group(group).put("apiVersion", "v1").put("kind", "APIGroup") : null;
  }

  private ObjectNode group(String group) {
    ObjectNode g = Json.object();
    g.put("name", group);
    ArrayNode versions = g.putArray("versions");
    List<String> names = resources.all().stream().filter(t -> t.group().equals(group)).map(ResourceType::version)
        .distinct().toList();
    for (String version : names) {
      versions.addObject().put("groupVersion", group + "/" + version).put("version", version);
    }
    g.putObject("preferredVersion").put("groupVersion", group + "/" + names.get(0)).put("version", names.get(0));
    return g;
  }

  private JsonNode resourceList(String group, String version) {
    List<ResourceType> types = resources.inGroupVersion(group, version);
    if (types.isEmpty()) {
      return null;
    }
    ObjectNode list = Documents.typed("v1", "APIResourceList");
    list.put("groupVersion", types.get(0).groupVersion());
    ArrayNode out = list.putArray("resources");
    for (ResourceType t : types) {
      ObjectNode r = out.addObject();
      r.put("name", t.plural());
      r.put("singularName", t.singular());
      r.put("namespaced", t.namespaced());
      r.put("kind", t.kind());
      r.set("verbs", Json.array(t.verbs()));
      if (!t.shortNames().isEmpty()) {
        r.set("shortNames", Json.array(t.shortNames()));
      }
      if (!t.categories().isEmpty()) {
        r.set("categories", Json.array(t.categories()));
      }
      for (String sub : t.subresources()) {
        ObjectNode s = out.addObject();
        s.put("name", t.plural() + "/" + sub);
        s.put("singularName", "");
        s.put("namespaced", t.namespaced());
        switch (sub) {
          case "scale" -> s.put("kind", "Scale").put("group", "autoscaling").put("version", "v1")
              .set("verbs", Json.array(List.of("get", "patch", "update")));
          case "token" -> s.put("kind", "TokenRequest").put("group", "authentication.k8s.io").put("version", "v1")
              .set("verbs", Json.array(List.of("create")));
          default -> s.put("kind", t.kind()).set("verbs", Json.array(List.of("get", "patch", "update")));
        }
      }
    }
    return list;
  }
}
