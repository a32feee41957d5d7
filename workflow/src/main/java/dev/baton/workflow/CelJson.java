package dev.baton.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * JSON values to CEL values and back, the one place the two meet. JSON in is either plain Java (maps, lists, numbers,
 * strings, booleans, null, as Jackson reads them into {@code Map}) or a Jackson {@link JsonNode}; CEL sees maps with
 * string keys, lists, {@code int} (Long), {@code double}, strings, bools and {@code null}. Out comes plain Java.
 */
public final class CelJson {

  private CelJson() {}

  /** A JSON value as CEL sees it. */
  public static Object toCel(Object json) {
    if (json == null || json == NullValue.NULL_VALUE) {
      return NullValue.NULL_VALUE;
    }
    if (json instanceof JsonNode node) {
      return fromNode(node);
    }
    if (json instanceof Map<?, ?> || json instanceof List<?>) {
      return eachValue(json, CelJson::toCel);
    }
    if (json instanceof Integer || json instanceof Long || json instanceof Short || json instanceof Byte) {
      return ((Number) json).longValue();
    }
    if (json instanceof BigInteger big) {
      return big.bitLength() < 64 ? (Object) big.longValue() : big.doubleValue();
    }
    if (json instanceof Float || json instanceof Double || json instanceof BigDecimal) {
      return ((Number) json).doubleValue();
    }
    if (json instanceof String || json instanceof Boolean) {
      return json;
    }
    throw new IllegalArgumentException("not a JSON value: " + json.getClass().getName());
  }

  private static Object fromNode(JsonNode node) {
    if (node.isNull() || node.isMissingNode()) {
      return NullValue.NULL_VALUE;
    }
    if (node.isObject()) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        out.put(e.getKey(), fromNode(e.getValue()));
      }
      return out;
    }
    if (node.isArray()) {
      List<Object> out = new ArrayList<>(node.size());
      node.forEach(n -> out.add(fromNode(n)));
      return out;
    }
    if (node.isIntegralNumber()) {
      return node.canConvertToLong() ? (Object) node.longValue() : node.doubleValue();
    }
    if (node.isNumber()) {
      return node.doubleValue();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    return node.asText();
  }

  /** A copy of a map (keys as text) or list with {@code convert} applied to every value. */
  private static Object eachValue(Object container, UnaryOperator<Object> convert) {
    if (container instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(String.valueOf(convert.apply(k)), convert.apply(v)));
      return out;
    }
    List<?> list = (List<?>) container;
    List<Object> out = new ArrayList<>(list.size());
    list.forEach(v -> out.add(convert.apply(v)));
    return out;
  }

  /**
   * A CEL result as plain JSON-able Java: maps (string keys), lists, Long, Double, String, Boolean or null; an
   * unsigned int becomes a number, bytes base64, a timestamp or duration its text.
   */
  public static Object toJson(Object cel) {
    if (cel == null || cel == NullValue.NULL_VALUE) {
      return null;
    }
    if (cel instanceof Map<?, ?> || cel instanceof List<?>) {
      return eachValue(cel, CelJson::toJson);
    }
    if (cel instanceof Long || cel instanceof Double || cel instanceof String || cel instanceof Boolean) {
      return cel;
    }
    if (cel instanceof Number n) {   // uint (UnsignedLong), int32s from extensions
      return n instanceof com.google.common.primitives.UnsignedLong u ? u.bigIntegerValue() : n;
    }
    if (cel instanceof CelByteString bytes) {
      return Base64.getEncoder().encodeToString(bytes.toByteArray());
    }
    if (cel instanceof com.google.protobuf.ByteString bytes) {
      return Base64.getEncoder().encodeToString(bytes.toByteArray());
    }
    return cel.toString();
  }
}
