package dev.baton.cli.support;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.PrintWriter;

/** JSON in and out: reading answers and arguments, printing documents as JSON or YAML. */
public final class Json {

  public static final ObjectMapper MAPPER = new ObjectMapper();
  private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private Json() {}

  public static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  /** The document, or null when the text is not JSON. */
  public static JsonNode parseOrNull(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /** Prints a document as {@code -o json} or {@code -o yaml} asks. */
  public static void print(PrintWriter out, Format format, Object document) {
    try {
      out.print(format == Format.yaml ? YAML.writeValueAsString(document)
          : PRETTY.writeValueAsString(document) + System.lineSeparator());
      out.flush();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot print the document: " + e.getOriginalMessage(), e);
    }
  }

  /** A field as text: "" when missing or null. */
  public static String text(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    return v == null || v.isNull() || v.isMissingNode() ? "" : v.asText();
  }
}
