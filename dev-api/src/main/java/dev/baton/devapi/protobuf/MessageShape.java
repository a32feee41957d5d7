package dev.baton.devapi.protobuf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The fields of one Kubernetes protobuf message (as in the API's {@code generated.proto}) with their JSON names,
 * and the decoding of such a message into the JSON the API server would have been sent.
 *
 * <p>Go writes every non-pointer field, empty or not; JSON omits empty ones ({@code omitempty}). So empty singular
 * strings, numbers and messages are left out, unless the field is a pointer in Go ({@code keepZero}: an explicit
 * {@code false} means something there). List elements are always kept: {@code apiGroups: [""]} is the core group.
 */
final class MessageShape {

  private enum Type { STRING, BOOL, INT, TIME, MESSAGE, STRING_MAP }

  private record Field(String name, Type type, boolean repeated, boolean keepZero, MessageShape message) {}

  private final Map<Integer, Field> fields = new HashMap<>();

  MessageShape string(int number, String name) {
    return add(number, new Field(name, Type.STRING, false, false, null));
  }

  MessageShape strings(int number, String name) {
    return add(number, new Field(name, Type.STRING, true, false, null));
  }

  /** A {@code *bool} in Go: present means set, false included. */
  MessageShape optionalBool(int number, String name) {
    return add(number, new Field(name, Type.BOOL, false, true, null));
  }

  MessageShape int64(int number, String name) {
    return add(number, new Field(name, Type.INT, false, false, null));
  }

  /** A {@code *int64} in Go: present means set. */
  MessageShape optionalInt64(int number, String name) {
    return add(number, new Field(name, Type.INT, false, true, null));
  }

  /** {@code metav1.Time}: seconds and nanos, written as RFC 3339. */
  MessageShape time(int number, String name) {
    return add(number, new Field(name, Type.TIME, false, false, null));
  }

  MessageShape message(int number, String name, MessageShape shape) {
    return add(number, new Field(name, Type.MESSAGE, false, false, shape));
  }

  MessageShape messages(int number, String name, MessageShape shape) {
    return add(number, new Field(name, Type.MESSAGE, true, false, shape));
  }

  /** {@code map<string, string>}: entries are messages of key (1) and value (2). */
  MessageShape stringMap(int number, String name) {
    return add(number, new Field(name, Type.STRING_MAP, false, false, null));
  }

  private MessageShape add(int number, Field field) {
    fields.put(number, field);
    return this;
  }

  ObjectNode decode(byte[] bytes) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    WireReader in = new WireReader(bytes, 0, bytes.length);
    while (in.hasMore()) {
      long key = in.key();
      int wireType = (int) (key & 7);
      Field field = fields.get((int) (key >>> 3));
      if (field == null) {
        in.skip(wireType);
        continue;
      }
      int expected = field.type() == Type.BOOL || field.type() == Type.INT ? WireReader.VARINT
          : WireReader.LENGTH_DELIMITED;
      if (wireType != expected) {
        throw new IllegalArgumentException("malformed protobuf: field " + field.name() + " has wire type " + wireType);
      }
      JsonNode value = switch (field.type()) {
        case STRING -> JsonNodeFactory.instance.textNode(utf8(in.lengthDelimited()));
        case BOOL -> JsonNodeFactory.instance.booleanNode(in.varint() != 0);
        case INT -> JsonNodeFactory.instance.numberNode(in.varint());
        case TIME -> time(in.lengthDelimited());
        case MESSAGE -> field.message().decode(in.lengthDelimited());
        case STRING_MAP -> entry(in.lengthDelimited());
      };
      if (field.repeated()) {
        out.withArray(field.name()).add(value);
      } else if (field.type() == Type.STRING_MAP) {
        out.with(field.name()).setAll((ObjectNode) value);
      } else if (field.keepZero() || !isEmpty(value)) {
        out.set(field.name(), value);
      }
    }
    return out;
  }

  private static boolean isEmpty(JsonNode value) {
    return value.isNull() || value.isTextual() && value.asText().isEmpty() || value.isBoolean() && !value.asBoolean()
        || value.isNumber() && value.asLong() == 0 || value.isContainerNode() && value.isEmpty();
  }

  private static JsonNode time(byte[] bytes) {
    WireReader in = new WireReader(bytes, 0, bytes.length);
    long seconds = 0;
    long nanos = 0;
    while (in.hasMore()) {
      long key = in.key();
      switch ((int) (key >>> 3)) {
        case 1 -> seconds = in.varint();
        case 2 -> nanos = in.varint();
        default -> in.skip((int) (key & 7));
      }
    }
    return seconds == 0 && nanos == 0 ? JsonNodeFactory.instance.nullNode()
        : JsonNodeFactory.instance.textNode(Instant.ofEpochSecond(seconds, nanos).toString());
  }

  private static ObjectNode entry(byte[] bytes) {
    WireReader in = new WireReader(bytes, 0, bytes.length);
    String key = "";
    String value = "";
    while (in.hasMore()) {
      long k = in.key();
      switch ((int) (k >>> 3)) {
        case 1 -> key = utf8(in.lengthDelimited());
        case 2 -> value = utf8(in.lengthDelimited());
        default -> in.skip((int) (k & 7));
      }
    }
    return JsonNodeFactory.instance.objectNode().put(key, value);
  }

  private static String utf8(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
