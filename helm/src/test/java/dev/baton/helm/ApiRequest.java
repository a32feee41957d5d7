package dev.baton.helm;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A request to the API server as its authorizer sees it: the permission it needs, the namespace ({@code null} for
 * cluster-scoped and all-namespace requests) and the object's name ({@code null} for collections).
 */
record ApiRequest(String agent, String method, String path, Permission permission, String namespace, String name) {

  /**
   * {@code /api/v1[/namespaces/NS]/RESOURCE[/NAME[/SUB]]} or {@code /apis/GROUP/VERSION/...}; GET of a name is get,
   * of a collection list (watch with {@code watch=true}); POST create, PUT update, PATCH patch, DELETE delete
   * (deletecollection on a collection). Empty for anything that is not a resource request (discovery: /api, /apis,
   * /apis/GROUP/VERSION, /version).
   */
  static Optional<ApiRequest> parse(String agent, String method, String pathAndQuery) {
    int q = pathAndQuery.indexOf('?');
    String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
    String query = q < 0 ? "" : pathAndQuery.substring(q + 1);
    List<String> parts = Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toList();
    String group;
    List<String> rest;
    if (parts.size() >= 3 && parts.get(0).equals("api")) {
      group = "";
      rest = parts.subList(2, parts.size());
    } else if (parts.size() >= 4 && parts.get(0).equals("apis")) {
      group = parts.get(1);
      rest = parts.subList(3, parts.size());
    } else {
      return Optional.empty();
    }
    String namespace = null;
    if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
      namespace = rest.get(1);
      rest = rest.subList(2, rest.size());
    }
    String resource = rest.get(0);
    String name = rest.size() >= 2 ? rest.get(1) : null;
    if (rest.size() >= 3) {
      resource = resource + "/" + rest.get(2);
    }
    boolean watch = Arrays.asList(query.split("&")).contains("watch=true");
    String verb = switch (method) {
      case "GET" -> name != null ? "get" : watch ? "watch" : "list";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> name != null ? "delete" : "deletecollection";
      default -> method.toLowerCase(Locale.ROOT);
    };
    return Optional.of(new ApiRequest(agent, method, pathAndQuery, new Permission(group, resource, verb), namespace,
        name));
  }

  /** The same request needing another verb (an apply that creates is authorised as create too). */
  ApiRequest as(String verb) {
    return new ApiRequest(agent, method, path, new Permission(permission.group(), permission.resource(), verb),
        namespace, name);
  }

  @Override
  public String toString() {
    return permission + (namespace == null ? "" : " in " + namespace) + (name == null ? "" : " (" + name + ")")
        + " [" + method + " " + path + "]";
  }
}
