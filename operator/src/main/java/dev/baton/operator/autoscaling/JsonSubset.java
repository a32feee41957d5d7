package dev.baton.operator.autoscaling;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether an object as the cluster holds it has every value the operator wants, ignoring what the API server or a
 * webhook added (defaults), so that additions do not cause an update on every pass. Lists must match in length.
 */
final class JsonSubset {

  private JsonSubset() {}

  static boolean covers(Object actual, Object desired) {
    if (desired instanceof Map<?, ?> d) {
      return actual instanceof Map<?, ?> a
          && d.entrySet().stream().allMatch(e -> covers(a.get(e.getKey()), e.getValue()));
    }
    if (desired instanceof List<?> d) {
      if (!(actual instanceof List<?> a) || a.size() != d.size()) {
        return false;
      }
      for (int i = 0; i < d.size(); i++) {
        if (!covers(a.get(i), d.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (desired instanceof Number d && actual instanceof Number a) {
      return d.toString().equals(a.toString());
    }
    return Objects.equals(actual, desired);
  }
}
