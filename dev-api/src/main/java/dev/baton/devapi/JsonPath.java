package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The subset of Kubernetes JSONPath that printer columns use: {@code .spec.entity}, {@code .items[0]},
 * {@code .steps[*].name} and filters such as {@code .status.conditions[?(@.type=="Ready")].status}. An expression
 * may be wrapped in braces ({@code {.spec.entity}}) as in kubectl's {@code -o jsonpath}.
 */
final class JsonPath {

  private static final Pattern FILTER =
      Pattern.compile("\\?\\(@((?:\\.[^=!\\s]+)+)\\s*(==|!=)\\s*(?:\"([^\"]*)\"|'([^']*)'|([^\\s)]+))\\)");

  private final List<String> steps;

  private JsonPath(List<String> steps) {
    this.steps = steps;
  }

  static JsonPath compile(String expression) {
    String e = expression.trim();
    if (e.startsWith("{") && e.endsWith("}")) {
      e = e.substring(1, e.length() - 1).trim();
    }
    List<String> steps = new ArrayList<>();
    int i = 0;
    while (i < e.length()) {
      char c = e.charAt(i);
      if (c == '.') {
        int end = i + 1;
        while (end < e.length() && e.charAt(end) != '.' && e.charAt(end) != '[') {
          end++;
        }
        if (end > i + 1) {
          steps.add(e.substring(i + 1, end));
        }
        i = end;
      } else if (c == '[') {
        int end = closingBracket(e, i);
        steps.add(e.substring(i, end + 1));
        i = end + 1;
      } else if (c == '$' || c == '@') {
        i++;
      } else {
        throw new IllegalArgumentException("unsupported JSONPath: " + expression);
      }
    }
    return new JsonPath(steps);
  }

  private static int closingBracket(String e, int open) {
    int depth = 0;
    boolean quoted = false;
    for (int i = open; i < e.length(); i++) {
      char c = e.charAt(i);
      if (c == '"' || c == '\'') {
        quoted = !quoted;
      } else if (!quoted && c == '[') {
        depth++;
      } else if (!quoted && c == ']' && --depth == 0) {
        return i;
      }
    }
    throw new IllegalArgumentException("unbalanced brackets in JSONPath: " + e);
  }

  /** Every value the path reaches, in document order; empty when it reaches nothing. */
  List<JsonNode> evaluate(JsonNode root) {
    List<JsonNode> current = List.of(root);
    for (String step : steps) {
      List<JsonNode> next = new ArrayList<>();
      for (JsonNode node : current) {
        apply(step, node, next);
      }
      current = next;
    }
    return current;
  }

  /** The first value the path reaches, or null. */
  JsonNode first(JsonNode root) {
    List<JsonNode> all = evaluate(root);
    return all.isEmpty() ? null : all.get(0);
  }

  private static void apply(String step, JsonNode node, List<JsonNode> out) {
    if (!step.startsWith("[")) {
      JsonNode child = node.get(step);
      if (child != null && !child.isNull()) {
        out.add(child);
      }
      return;
    }
    String inner = step.substring(1, step.length() - 1).trim();
    if (!node.isArray()) {
      if (inner.startsWith("'") || inner.startsWith("\"")) {
        JsonNode child = node.get(inner.substring(1, inner.length() - 1));
        if (child != null && !child.isNull()) {
          out.add(child);
        }
      }
      return;
    }
    if (inner.equals("*")) {
      node.forEach(out::add);
    } else if (inner.startsWith("?")) {
      Matcher m = FILTER.matcher(inner);
      if (!m.matches()) {
        throw new IllegalArgumentException("unsupported JSONPath filter: " + inner);
      }
      JsonPath field = compile(m.group(1));
      boolean equals = m.group(2).equals("==");
      String literal = m.group(3) != null ? m.group(3) : m.group(4) != null ? m.group(4) : m.group(5);
      for (JsonNode element : node) {
        JsonNode value = field.first(element);
        boolean same = value != null && value.asText().equals(literal);
        if (same == equals) {
          out.add(element);
        }
      }
    } else {
      int index = Integer.parseInt(inner);
      JsonNode child = node.get(index < 0 ? node.size() + index : index);
      if (child != null) {
        out.add(child);
      }
    }
  }
}
