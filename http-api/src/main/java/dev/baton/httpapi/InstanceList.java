package dev.baton.httpapi;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * {@code GET .../instances} and the search: the instances found, newest first, in their list form, and how many.
 *
 * @param nextCursor the search's next page ({@link InstanceQuery#cursor}), absent when this page is the last
 */
public record InstanceList(List<InstanceDocument> items, int count,
    @JsonInclude(JsonInclude.Include.NON_NULL) String nextCursor) {

  public static InstanceList of(List<InstanceDocument> items) {
    return new InstanceList(List.copyOf(items), items.size(), null);
  }

  /** A page of a search, and where the next one begins (null when there is none). */
  public static InstanceList page(List<InstanceDocument> items, String nextCursor) {
    return new InstanceList(List.copyOf(items), items.size(), nextCursor);
  }
}
