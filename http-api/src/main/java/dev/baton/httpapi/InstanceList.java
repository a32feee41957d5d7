package dev.baton.httpapi;

import java.util.List;

/** {@code GET .../instances}: the instances found, newest first, in their list form, and how many. */
public record InstanceList(List<InstanceDocument> items, int count) {

  public static InstanceList of(List<InstanceDocument> items) {
    return new InstanceList(List.copyOf(items), items.size());
  }
}
