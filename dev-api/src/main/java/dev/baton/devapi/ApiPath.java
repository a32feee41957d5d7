package dev.baton.devapi;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request path of the Kubernetes REST API taken apart: {@code /api/v1/namespaces/default/secrets/x} or
 * {@code /apis/baton.dev/v1alpha1/namespaces/default/workflows/order/status}, plus its query parameters.
 *
 * @param group API group, empty for the core group ({@code /api/v1})
 * @param version API version, null for {@code /api} and {@code /apis/<group>}
 * @param namespace namespace of a namespaced resource, null otherwise
 * @param plural resource name such as {@code workflows}, null for discovery paths
 * @param name object name, null for collections
 * @param subresource {@code status} or {@code scale}, null otherwise
 * @param query decoded query parameters (the first value of each)
 */
record ApiPath(String group, String version, String namespace, String plural, String name, String subresource,
    Map<String, String> query) {

  static ApiPath parse(String pathAndQuery) {
    int q = pathAndQuery.indexOf('?');
    String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
    Map<String, String> query = parseQuery(q < 0 ? "" : pathAndQuery.substring(q + 1));
    List<String> s = Arrays.stream(path.split("/")).filter(p -> !p.isEmpty()).toList();
    String group;
    String version = null;
    int rest;
    if (!s.isEmpty() && s.get(0).equals("api")) {
      group = "";
      version = s.size() > 1 ? s.get(1) : null;
      rest = 2;
    } else if (!s.isEmpty() && s.get(0).equals("apis")) {
      group = s.size() > 1 ? s.get(1) : null;
      version = s.size() > 2 ? s.get(2) : null;
      rest = 3;
    } else {
      return new ApiPath(null, null, null, null, null, null, query);
    }
    List<String> r = rest < s.size() ? s.subList(rest, s.size()) : List.of();
    String namespace = null;
    // "namespaces/x" is the namespace object itself; "namespaces/x/<plural>..." addresses something inside it.
    if (r.size() >= 3 && r.get(0).equals("namespaces")) {
      namespace = r.get(1);
      r = r.subList(2, r.size());
    }
    return new ApiPath(group, version, namespace, at(r, 0), at(r, 1), at(r, 2), query);
  }

  private static String at(List<String> l, int i) {
    return i < l.size() ? l.get(i) : null;
  }

  private static Map<String, String> parseQuery(String raw) {
    Map<String, String> query = new LinkedHashMap<>();
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = decode(eq < 0 ? pair : pair.substring(0, eq));
      query.putIfAbsent(key, eq < 0 ? "" : decode(pair.substring(eq + 1)));
    }
    return query;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  boolean isResource() {
    return version != null && plural != null;
  }

  boolean isCollection() {
    return isResource() && name == null;
  }

  /** {@code group/version}, or just {@code version} for the core group. */
  String groupVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  boolean isWatch() {
    String w = query.get("watch");
    return "true".equals(w) || "1".equals(w);
  }

  String param(String key) {
    return query.get(key);
  }
}
