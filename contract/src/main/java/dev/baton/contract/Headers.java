package dev.baton.contract;

/** AMQP header names of the message contract (docs/design.md#message-contract). */
public final class Headers {

  public static final String WORKFLOW = "baton-workflow";
  public static final String REVISION = "baton-revision";
  public static final String INSTANCE = "baton-instance";
  public static final String STEP = "baton-step";
  /** The orchestrator's dispatch attempt of the step (1 first). */
  public static final String ATTEMPT = "baton-attempt";
  public static final String ENTITY = "baton-entity";
  public static final String ACTION = "baton-action";
  /** Worker-level retries so far: 0 on the first delivery. */
  public static final String RETRIES = "baton-retries";
  /**
   * The step's timeout in milliseconds, on commands of steps that have one (absent otherwise): a worker need not let
   * a handler run longer, since the orchestrator stops waiting for the result then. The Java SDK bounds its handler
   * timeout by it.
   */
  public static final String STEP_TIMEOUT = "baton-step-timeout";
  /**
   * The instant at which the runtime treats this attempt as timed out, in epoch milliseconds (a long, or its decimal
   * text from clients that only send strings), on every command of a step that has a timeout (and of every step of
   * an instance with a deadline of its own, {@code spec.timeout}, whose deadline a step's never passes) and kept
   * unchanged across the retry staircase. A worker never starts handling a command after it: it answers {@code expired} and
   * ACKs (docs/design.md#message-contract). So once the runtime has timed the attempt out, the command can no
   * longer start anywhere, and its compensation cannot overtake it.
   */
  public static final String DEADLINE = "baton-deadline";
  /** Namespace of the Workflow (an addition to the message contract, docs/design.md#message-contract: Workflow names are unique per namespace only). */
  public static final String NAMESPACE = "baton-namespace";
  public static final String TRACEPARENT = "traceparent";

  /** Prefix every header that a worker must copy from a command to its event. */
  public static final String BATON_PREFIX = "baton-";

  public static final String EXCEPTION_MESSAGE = "x-exception-message";
  public static final String EXCEPTION_TYPE = "x-exception-type";
  public static final String ORIGINAL_ROUTING_KEY = "x-original-routing-key";
  /** Exchange the message was first published to (set on dead letters, used by replay). */
  public static final String ORIGINAL_EXCHANGE = "x-original-exchange";

  public static final String CONTENT_TYPE_JSON = "application/json";

  /**
   * Whether a message's {@code content_type} allows a JSON body: absent (clients in other languages often leave it
   * out), {@code application/json} or a {@code +json} type, parameters such as {@code ; charset=utf-8} ignored.
   */
  public static boolean isJsonContentType(String contentType) {
    if (contentType == null || contentType.isBlank()) {
      return true;
    }
    String type = contentType.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
    return type.equals(CONTENT_TYPE_JSON) || type.startsWith("application/") && type.endsWith("+json");
  }

  private Headers() {}

  /**
   * A command's {@link #DEADLINE} in epoch milliseconds, or null when it has none (a step without a timeout) or the
   * value is not a whole number (a worker then treats the command as having none, as it would without the header).
   */
  public static Long deadline(Object value) {
    if (value instanceof Number n) {
      return n.longValue();
    }
    String text = text(value);
    if (text == null) {
      return null;
    }
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * A header's value as text, or null when absent or blank: AMQP strings arrive as the client's {@code LongString},
   * other clients may send plain strings.
   */
  public static String text(Object value) {
    if (value == null) {
      return null;
    }
    String s = value.toString();
    return s.isBlank() ? null : s;
  }
}
