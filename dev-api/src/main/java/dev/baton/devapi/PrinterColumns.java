package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.baton.api.json.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The columns of {@code kubectl get} per kind. For custom resources they are the CRD's
 * {@code additionalPrinterColumns}, evaluated the way the API server does (first JSONPath result; strings as
 * printed by JSONPath, numbers as numbers, dates as an age). Built-in kinds get the columns kubectl users know.
 */
final class PrinterColumns {

  private static final String NAME_DESCRIPTION =
      "Name must be unique within a namespace. Is required when creating resources.";
  private static final String AGE_DESCRIPTION =
      "CreationTimestamp is a timestamp representing the server time when this object was created.";

  private PrinterColumns() {}

  static List<TableColumn> forType(ResourceType type) {
    List<TableColumn> columns = new ArrayList<>();
    columns.add(nameColumn(0));
    if (type.crd() != null) {
      columns.addAll(fromCrd(type.crdVersion().path("additionalPrinterColumns")));
      return columns;
    }
    switch (type.kind()) {
      case "Deployment" -> {
        columns.add(column("Ready", "string", "Number of the pods ready out of the desired ones.",
            (o, now) -> TextNode.valueOf(o.path("status").path("readyReplicas").asInt(0) + "/"
                + o.path("spec").path("replicas").asInt(1))));
        columns.add(column("Up-to-date", "integer", "Pods updated to the latest template.",
            path(".status.updatedReplicas", "integer", 0)));
        columns.add(column("Available", "integer", "Pods available to serve.",
            path(".status.availableReplicas", "integer", 0)));
      }
      case "Secret" -> {
        columns.add(column("Type", "string", "The type of the secret.", (o, now) -> TextNode.valueOf(o.path("type").asText("Opaque"))));
        columns.add(column("Data", "integer", "The number of keys in the secret.", (o, now) -> IntNode.valueOf(
            o.path("data").size() + o.path("stringData").size())));
      }
      case "ConfigMap" -> columns.add(column("Data", "integer", "The number of keys in the config map.",
          (o, now) -> IntNode.valueOf(o.path("data").size() + o.path("binaryData").size())));
      case "ServiceAccount" -> columns.add(column("Secrets", "integer", "The number of secrets listed.",
          (o, now) -> IntNode.valueOf(o.path("secrets").size())));
      case "RoleBinding", "ClusterRoleBinding" -> columns.add(column("Role", "string", "The role it binds.",
          (o, now) -> TextNode.valueOf(o.path("roleRef").path("kind").asText() + "/"
              + o.path("roleRef").path("name").asText())));
      case "Namespace" -> columns.add(column("Status", "string", "The phase of the namespace.",
          (o, now) -> TextNode.valueOf(o.path("status").path("phase").asText("Active"))));
      case "Event" -> {
        // kubectl get events: LAST SEEN TYPE REASON OBJECT MESSAGE, without NAME.
        columns.clear();
        columns.add(new TableColumn("Last Seen", "string", "", "When the event last happened.", 0,
            (o, now) -> age(lastSeen(o), now)));
        columns.add(column("Type", "string", "Normal or Warning.", path(".type", "string")));
        columns.add(column("Reason", "string", "Why the event happened.", path(".reason", "string")));
        columns.add(column("Object", "string", "The object it is about.", (o, now) -> TextNode.valueOf(
            o.path("involvedObject").path("kind").asText().toLowerCase() + "/"
                + o.path("involvedObject").path("name").asText())));
        columns.add(column("Message", "string", "What happened.", path(".message", "string")));
        columns.add(nameColumn(1));
        return columns;
      }
      case "CustomResourceDefinition" -> {
        columns.add(new TableColumn("Created At", "date", "", AGE_DESCRIPTION, 0,
            (o, now) -> TextNode.valueOf(o.path("metadata").path("creationTimestamp").asText())));
        return columns;
      }
      default -> { }
    }
    columns.add(new TableColumn("Age", "string", "", AGE_DESCRIPTION, 0,
        (o, now) -> age(o.path("metadata").path("creationTimestamp").asText(null), now)));
    return columns;
  }

  private static TableColumn nameColumn(int priority) {
    return new TableColumn("Name", "string", "name", NAME_DESCRIPTION, priority, path(".metadata.name", "string"));
  }

  private static List<TableColumn> fromCrd(JsonNode printerColumns) {
    List<TableColumn> columns = new ArrayList<>();
    for (JsonNode c : printerColumns) {
      String type = c.path("type").asText("string");
      columns.add(new TableColumn(c.path("name").asText(), type, c.path("format").asText(""),
          c.path("description").asText(""), c.path("priority").asInt(0), path(c.path("jsonPath").asText(), type)));
    }
    return columns;
  }

  private static TableColumn column(String name, String type, String description, TableColumn.Cell cell) {
    return new TableColumn(name, type, "", description, 0, cell);
  }

  private static TableColumn.Cell path(String expression, String type) {
    JsonPath path = JsonPath.compile(expression);
    return (o, now) -> cell(path.first(o), type, now);
  }

  private static TableColumn.Cell path(String expression, String type, int absent) {
    TableColumn.Cell cell = path(expression, type);
    return (o, now) -> {
      JsonNode value = cell.of(o, now);
      return value.isNull() ? IntNode.valueOf(absent) : value;
    };
  }

  /** A JSON value as the API server puts it into a cell of the given column type. */
  static JsonNode cell(JsonNode value, String type, Instant now) {
    if (value == null || value.isNull() || value.isMissingNode()) {
      return NullNode.getInstance();
    }
    return switch (type) {
      case "integer" -> value.isNumber() ? JsonNodeFactory.instance.numberNode(value.asLong()) : NullNode.getInstance();
      case "number" -> value.isNumber() ? value : NullNode.getInstance();
      case "boolean" -> value.isBoolean() ? value : NullNode.getInstance();
      case "date" -> value.isTextual() ? age(value.asText(), now) : NullNode.getInstance();
      // JSONPath prints scalars bare and everything else as JSON.
      default -> TextNode.valueOf(value.isValueNode() ? value.asText() : Json.write(value));
    };
  }

  private static JsonNode age(String timestamp, Instant now) {
    String age = timestamp == null ? null : HumanDuration.since(timestamp, now);
    return age == null ? TextNode.valueOf("<unknown>") : TextNode.valueOf(age);
  }

  private static String lastSeen(JsonNode event) {
    for (String field : List.of("lastTimestamp", "eventTime", "firstTimestamp")) {
      String t = event.path(field).asText("");
      if (!t.isEmpty() && !t.equals("null")) {
        return t;
      }
    }
    return event.path("metadata").path("creationTimestamp").asText(null);
  }
}
