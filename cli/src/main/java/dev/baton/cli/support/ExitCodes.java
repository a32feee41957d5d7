package dev.baton.cli.support;

/**
 * What {@code baton}'s exit codes mean, for scripts: the same for every command over the runtime or the broker.
 * The {@code HELP_*} lines are what {@code --help} lists; cli/README.md's table lists every code (ExitCodesReadmeTest
 * keeps the two equal).
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
  /** {@code --wait}: the instance ended FAILED (a step failed and it was not, or could not be, undone). */
  public static final int FAILED = 4;
  /** {@code --wait}: the instance ended COMPENSATED (a step failed and the completed ones were undone). */
  public static final int COMPENSATED = 5;
  /** {@code --wait}: the instance ended CANCELLED. */
  public static final int CANCELLED = 6;
  /** {@code --wait}: the wait was over and the instance had not ended (still RUNNING or COMPENSATING). */
  public static final int STILL_RUNNING = 7;
  /** {@code bulk}: done, but some instances refused the action (the same number as {@link #FAILED}). */
  public static final int SOME_REFUSED = 4;
  /** {@code bulk}: the operation was not confirmed, so nothing was done. */
  public static final int NOT_CONFIRMED = 8;

  public static final String HEADING = "%nExit codes:%n";
  public static final String HELP_OK = "0:done";
  public static final String HELP_SERVER = "1:the runtime or the broker refused the request (HTTP 4xx/5xx); its message is printed";
  public static final String HELP_USAGE = "2:usage error: unknown option, missing or malformed argument";
  public static final String HELP_UNREACHABLE = "3:the runtime (or, for dlq, RabbitMQ) cannot be reached";
  public static final String HELP_WAIT_OK = "0:done; with --wait: the instance ended SUCCEEDED";
  public static final String HELP_FAILED = "4:with --wait: the instance ended FAILED";
  public static final String HELP_COMPENSATED = "5:with --wait: the instance ended COMPENSATED (a step failed, the"
      + " completed steps were undone)";
  public static final String HELP_CANCELLED = "6:with --wait: the instance ended CANCELLED";
  public static final String HELP_BULK_OK = "0:done: every instance it matched was acted on";
  public static final String HELP_SOME_REFUSED = "4:done, but some instances refused the action (the last reason is"
      + " printed)";
  public static final String HELP_NOT_CONFIRMED = "8:not confirmed: nothing was done";
  public static final String HELP_STILL_RUNNING = "7:with --wait: the wait was over before the instance ended (it is"
      + " still RUNNING or COMPENSATING)";

  /** The exit code of an instance's status after {@code --wait}: 0 only when it SUCCEEDED. */
  public static int ofOutcome(String status) {
    return switch (status == null ? "" : status) {
      case "SUCCEEDED" -> OK;
      case "FAILED" -> FAILED;
      case "COMPENSATED" -> COMPENSATED;
      case "CANCELLED" -> CANCELLED;
      default -> STILL_RUNNING;
    };
  }

  private ExitCodes() {}
}
