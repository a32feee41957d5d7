package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Field selectors such as {@code involvedObject.name=order,involvedObject.kind=Workflow}, which
 * {@code kubectl describe} uses to find an object's Events. The fabric8 store only understands
 * {@code metadata.name} and {@code metadata.namespace}; the rest is filtered here on the listed objects.
 */
final class FieldSelector {

  record Term(String field, String value, boolean equal) {

    boolean matches(JsonNode object) {
      JsonNode v = JsonPath.compile("." + field).first(object);
      String actual = v == null ? "" : v.asText();
      return actual.equals(value) == equal;
    }

    boolean storeUnderstands() {
      return equal && (field.equals("metadata.name") || field.equals("metadata.namespace"));
    }

    String text() {
      return field + (equal ? "=" : "!=") + value;
    }
  }

  private final List<Term> terms;

  private FieldSelector(List<Term> terms) {
    this.terms = terms;
  }

  static FieldSelector parse(String selector) {
    List<Term> terms = new ArrayList<>();
    if (selector != null) {
      for (String raw : selector.split(",")) {
        String t = raw.trim();
        if (t.isEmpty()) {
          continue;
        }
        int ne = t.indexOf("!=");
        if (ne > 0) {
          terms.add(new Term(t.substring(0, ne), t.substring(ne + 2), false));
        } else {
          int eq = t.indexOf('=');
          String value = t.substring(eq + 1);
          terms.add(new Term(t.substring(0, eq), value.startsWith("=") ? value.substring(1) : value, true));
        }
      }
    }
    return new FieldSelector(terms);
  }

  /** The part of the selector the store evaluates itself, or null for none. */
  String forStore() {
    List<String> parts = terms.stream().filter(Term::storeUnderstands).map(Term::text).toList();
    return parts.isEmpty() ? null : String.join(",", parts);
  }

  /** True when some terms must be evaluated here. */
  boolean needsFiltering() {
    return terms.stream().anyMatch(t -> !t.storeUnderstands());
  }

  /** Every term, including those the store could have evaluated. */
  boolean matchesAll(JsonNode object) {
    return terms.stream().allMatch(t -> t.matches(object));
  }

  boolean matches(JsonNode object) {
    return terms.stream().filter(t -> !t.storeUnderstands()).allMatch(t -> t.matches(object));
  }
}
