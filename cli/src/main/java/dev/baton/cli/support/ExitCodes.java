package dev.baton.cli.support;

/**
 * What {@code baton}'s exit codes mean, for scripts: the same for every command over the runtime or the broker.
 * The {@code HELP_*} lines are what {@code --help} lists.
 */
public final class ExitCodes {

  /** Done. */
  public static final int OK = 0;
  /** The runtime or the broker answered with an error (HTTP 4xx/5xx, a refused AMQP operation); its message is shown. */
  public static final int SERVER_ERROR = 1;
  /** Bad options or arguments (picocli's usage errors use the same code). */
  public static final int USAGE = 2;
  /** The runtime or the broker cannot be reached. */
  public static final int UNREACHABLE = 3;

  public static final String HEADING = "%nExit codes:%n";
  public static final String HELP_OK = "0:done";
  public static final String HELP_SERVER = "1:the runtime or the broker refused the request (HTTP 4xx/5xx); its message is printed";
  public static final String HELP_USAGE = "2:usage error: unknown option, missing or malformed argument";
  public static final String HELP_UNREACHABLE = "3:the runtime (or, for dlq, RabbitMQ) cannot be reached";

  private ExitCodes() {}
}
