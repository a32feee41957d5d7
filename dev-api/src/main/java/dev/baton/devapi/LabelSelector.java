package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** Label selectors ({@code app=x}, {@code tier!=db}, {@code env in (a,b)}, {@code !legacy}) for HTTP watches. */
final class LabelSelector {

  private final List<Predicate<JsonNode>> requirements;

  private LabelSelector(List<Predicate<JsonNode>> requirements) {
    this.requirements = requirements;
  }

  static LabelSelector parse(String selector) {
    List<Predicate<JsonNode>> requirements = new ArrayList<>();
    if (selector != null) {
      for (String term : split(selector)) {
        requirements.add(requirement(term.trim()));
      }
    }
    return new LabelSelector(requirements);
  }

  boolean matches(JsonNode object) {
    JsonNode labels = object.path("metadata").path("labels");
    return requirements.stream().allMatch(r -> r.test(labels));
  }

  private static Predicate<JsonNode> requirement(String t) {
    if (t.startsWith("!")) {
      String key = t.substring(1).trim();
      return labels -> !labels.has(key);
    }
    int ne = t.indexOf("!=");
    if (ne > 0) {
      String key = t.substring(0, ne).trim();
      String value = t.substring(ne + 2).trim();
      return labels -> !value.equals(labels.path(key).asText(null));
    }
    int eq = t.indexOf('=');
    if (eq > 0) {
      String key = t.substring(0, eq).trim();
      String value = t.substring(eq + 1).replaceFirst("^=", "").trim();
      return labels -> value.equals(labels.path(key).asText(null));
    }
    String[] words = t.split("\\s+", 3);
    if (words.length == 3 && (words[1].equals("in") || words[1].equals("notin"))) {
      List<String> values = List.of(words[2].replaceAll("[()\\s]", "").split(","));
      boolean in = words[1].equals("in");
      return labels -> labels.has(words[0]) && values.contains(labels.path(words[0]).asText()) == in
          || !in && !labels.has(words[0]);
    }
    return labels -> labels.has(t);
  }

  /** Splits on commas outside parentheses. */
  private static List<String> split(String selector) {
    List<String> terms = new ArrayList<>();
    int depth = 0;
    StringBuilder current = new StringBuilder();
    for (char c : selector.toCharArray()) {
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      }
      if (c == ',' && depth == 0) {
        terms.add(current.toString());
        current.setLength(0);
      } else {
        current.append(c);
      }
    }
    if (!current.isEmpty()) {
      terms.add(current.toString());
    }
    return terms.stream().filter(s -> !s.isBlank()).toList();
  }
}
