package dev.baton.devapi.cel;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

final class Json {
  private Json() {}

  static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }
}
