package dev.baton.workflow;

/**
 * The names of a map's iterations in an instance: iteration {@code i} of map {@code ship-items} is
 * {@code ship-items[i]}, and a step inside it, {@code ship-one}, runs as {@code ship-one[i]} (the name its command
 * carries in {@code baton-step} and its events echo). Step names are tokens without brackets, so the index is never
 * ambiguous. The one place these names are made and read.
 */
public final class IterationNames {

  private IterationNames() {}

  /** {@code step[index]}. */
  public static String of(String step, int index) {
    return step + "[" + index + "]";
  }

  /** The step of the definition a name belongs to: {@code ship-one[3]} is {@code ship-one}; other names as they are. */
  public static String base(String name) {
    int open = bracket(name);
    return open < 0 ? name : name.substring(0, open);
  }

  /** The iteration a name belongs to: 3 for {@code ship-one[3]}; -1 for a name outside any map's iterations. */
  public static int index(String name) {
    int open = bracket(name);
    if (open < 0) {
      return -1;
    }
    try {
      return Integer.parseInt(name.substring(open + 1, name.length() - 1));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static int bracket(String name) {
    if (name == null || !name.endsWith("]")) {
      return -1;
    }
    return name.lastIndexOf('[');
  }
}
