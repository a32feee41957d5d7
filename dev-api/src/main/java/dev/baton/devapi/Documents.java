package dev.baton.devapi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;

/** Kubernetes documents as the dev API writes them. */
final class Documents {

  private Documents() {}

  /** A document of that kind, {@code kind} and {@code apiVersion} first, as the API server writes them. */
  static ObjectNode typed(String apiVersion, String kind) {
    ObjectNode o = Json.object();
    o.put("kind", kind);
    o.put("apiVersion", apiVersion);
    return o;
  }
}
