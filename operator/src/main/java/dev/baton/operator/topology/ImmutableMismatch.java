package dev.baton.operator.topology;

import java.util.Map;

/**
 * An existing queue argument or exchange type that differs from the plan. RabbitMQ cannot change either in place, so
 * the operator leaves the object alone, applies everything else, and tells a person the two ways out.
 */
public record ImmutableMismatch(Kind kind, String name, String property, Object actual, Object desired) {

  public enum Kind {
    QUEUE,
    EXCHANGE
  }

  /**
   * The message for the condition.
   *
   * @param specFields the spec field behind each property, e.g. {@code x-queue-type → spec.queue.type}; a property
   *     with no spec field was set outside Baton
   */
  public String advice(Map<String, String> specFields) {
    String what = (kind == Kind.QUEUE ? "queue " : "exchange ") + name;
    String specField = specFields.get(property);
    StringBuilder sb = new StringBuilder()
        .append(what).append(" has ").append(property).append('=').append(show(actual))
        .append(" but the plan needs ").append(show(desired))
        .append("; RabbitMQ cannot change that in place: ");
    if (kind == Kind.QUEUE) {
      sb.append("drain ").append(name).append(" and delete it (the operator declares it anew within one resync)");
    } else {
      sb.append("delete ").append(name).append(" (the operator declares it anew within one resync)");
    }
    if (specField != null) {
      sb.append(", or set ").append(specField).append(" back to ").append(show(actual));
    } else {
      sb.append("; it was changed outside Baton");
    }
    return sb.toString();
  }

  private static String show(Object value) {
    return value == null ? "(none)" : String.valueOf(value);
  }
}
