package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;

/**
 * Answers {@code kubectl get}'s {@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io} with a
 * {@code meta.k8s.io/v1} Table: column definitions, one row of cells per object, and per row the object's metadata
 * (or the whole object, or nothing, as {@code includeObject} asks).
 */
final class TableRenderer {

  private TableRenderer() {}

  /** True when the Accept header asks for a Table. */
  static boolean wanted(String accept) {
    return accept != null && accept.contains("as=Table") && accept.contains("g=meta.k8s.io");
  }

  /**
   * @param columns the kind's columns
   * @param body a list ({@code items}) or a single object, as the store returned it
   * @param includeObject {@code None}, {@code Object} or (default) {@code PartialObjectMetadata}
   */
  static ObjectNode render(List<TableColumn> columns, JsonNode body, String includeObject, Instant now) {
    ObjectNode table = Documents.typed("meta.k8s.io/v1", "Table");
    table.putObject("metadata").put("resourceVersion", body.path("metadata").path("resourceVersion").asText(""));
    ArrayNode definitions = table.putArray("columnDefinitions");
    for (TableColumn c : columns) {
      definitions.addObject().put("name", c.name()).put("type", c.type()).put("format", c.format())
          .put("description", c.description()).put("priority", c.priority());
    }
    ArrayNode rows = table.putArray("rows");
    Iterable<JsonNode> objects = body.has("items") ? body.path("items") : List.of(body);
    for (JsonNode object : objects) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      for (TableColumn c : columns) {
        cells.add(c.cell().of(object, now));
      }
      if ("Object".equals(includeObject)) {
        row.set("object", object);
      } else if (!"None".equals(includeObject)) {
        row.set("object", Documents.typed("meta.k8s.io/v1", "PartialObjectMetadata").set("metadata",
            object.path("metadata")));
      }
    }
    return table;
  }
}
