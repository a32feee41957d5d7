package dev.baton.api.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.UncheckedIOException;
import java.util.Collection;

/**
 * Baton's JSON: the mappers every module shares (built once; Jackson mappers are thread-safe once configured) and the
 * few conversions they all need. Message bodies a worker reads go through the worker SDK's own reader, which never
 * quotes a body in an error.
 */
public final class Json {

  /**
   * Everyday reading and writing; unknown properties are tolerated (a newer peer may add fields); instants are
   * written as ISO-8601 text ({@code 2026-12-04T19:30:00.123Z}), as the API shows them.
   */
  public static final ObjectMapper MAPPER = JsonMapper.builder()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .build();

  /** Sorted keys, so equal documents serialise to equal text and hash alike. */
  public static final ObjectMapper CANONICAL = JsonMapper.builder()
      .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .build();

  /** Indented, for people. */
  public static final ObjectMapper PRETTY = MAPPER.copy().enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}

  public static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  public static ArrayNode array(Collection<String> values) {
    ArrayNode a = JsonNodeFactory.instance.arrayNode();
    values.forEach(a::add);
    return a;
  }

  /** Parses JSON that Baton wrote itself (a column, a document); null reads as null. */
  public static JsonNode read(String json) {
    if (json == null) {
      return null;
    }
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses a JSON object Baton wrote itself; null or anything else reads as an empty object. */
  public static ObjectNode readObject(String json) {
    JsonNode node = read(json);
    return node instanceof ObjectNode o ? o : object();
  }

  /**
   * Parses JSON that came from outside (a request body, a file): blank text is JSON null.
   *
   * @throws IllegalArgumentException saying where it is not JSON
   */
  public static JsonNode parse(String text) {
    try {
      return MAPPER.readTree(text == null || text.isBlank() ? "null" : text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** The document, or null when the text is blank or not JSON (an answer from a peer that may be something else). */
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

  /** A field as text: "" when missing or null. */
  public static String text(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    return v == null || v.isNull() || v.isMissingNode() ? "" : v.asText();
  }

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static byte[] writeBytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
