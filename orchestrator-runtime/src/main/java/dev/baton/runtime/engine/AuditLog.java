package dev.baton.runtime.engine;

import dev.baton.runtime.store.Actor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit's log line: one per start, signal, retry, cancel, replay or bulk operation, on the logger
 * {@value #LOGGER}, as {@code key=value} pairs a log collector can index without a grammar of its own:
 *
 * <pre>action=cancel outcome=done user=system:serviceaccount:team-a:ci namespace=team-a workflow=orders
 * instance=0190… source=10.0.0.7 detail=compensate</pre>
 *
 * <p>It says what was asked and how it ended (the instance's audit rows hold only what happened). Values that a
 * client chose (a signal's name) are quoted and escaped, so no line can be forged by what is sent. Nothing here is
 * ever a token: an {@link Actor} has none.
 */
public final class AuditLog {

  /** The logger's name, apart from the code's own loggers so that it can be routed and kept on its own. */
  public static final String LOGGER = "baton.audit";
  private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

  /** How an action ended, as the line says it. */
  public enum Outcome {
    /** a start that created its instance */
    CREATED,
    /** a start whose business key was started before: nothing changed */
    EXISTING,
    /** the action was taken (or was already done: a second cancel) */
    DONE,
    /** the instance's state did not allow it (409) */
    REFUSED,
    /** no such instance */
    NOT_FOUND,
    /** Kubernetes RBAC did not allow it (403) */
    FORBIDDEN;

    String wire() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  /**
   * One line.
   *
   * @param instance the instance's id, or null (a batch, a replay of a queue)
   * @param detail what the action named (a signal, {@code compensate}, {@code batch of 3: 2 created}), or null
   */
  public record Line(String action, Outcome outcome, Actor actor, String namespace, String workflow, String instance,
      String detail) {}

  private AuditLog() {}

  public static void write(Line line) {
    if (LOG.isInfoEnabled()) {
      LOG.info(format(line));
    }
  }

  /** The line's text. */
  static String format(Line l) {
    StringBuilder b = new StringBuilder(160);
    pair(b, "action", l.action());
    pair(b, "outcome", l.outcome().wire());
    pair(b, "user", l.actor() == null ? null : l.actor().user());
    pair(b, "namespace", l.namespace());
    pair(b, "workflow", l.workflow());
    pair(b, "instance", l.instance());
    pair(b, "source", l.actor() == null ? null : l.actor().source());
    pair(b, "detail", l.detail());
    return b.toString();
  }

  private static void pair(StringBuilder b, String key, String value) {
    if (!b.isEmpty()) {
      b.append(' ');
    }
    b.append(key).append('=').append(value(value));
  }

  /** A value as it is, or quoted and escaped when it has a space, a quote, an '=' or a control character. */
  static String value(String v) {
    if (v == null) {
      return "-";
    }
    boolean plain = !v.isEmpty();
    for (int i = 0; i < v.length() && plain; i++) {
      char ch = v.charAt(i);
      plain = ch > ' ' && ch != '"' && ch != '=' && ch != '\\' && ch != 0x7f;
    }
    if (plain) {
      return v;
    }
    StringBuilder q = new StringBuilder(v.length() + 8).append('"');
    for (int i = 0; i < v.length(); i++) {
      char ch = v.charAt(i);
      switch (ch) {
        case '"' -> q.append("\\\"");
        case '\\' -> q.append("\\\\");
        case '\n' -> q.append("\\n");
        case '\r' -> q.append("\\r");
        case '\t' -> q.append("\\t");
        default -> {
          if (ch < ' ' || ch == 0x7f) {
            q.append(String.format("\\u%04x", (int) ch));
          } else {
            q.append(ch);
          }
        }
      }
    }
    return q.append('"').toString();
  }
}
