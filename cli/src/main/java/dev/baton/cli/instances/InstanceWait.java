package dev.baton.cli.instances;

import dev.baton.cli.support.CliException;
import dev.baton.cli.support.ExitCodes;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.InstanceDocument;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;

/**
 * Waiting for an instance to end from the command line: the runtime's long poll ({@code GET
 * /api/v1/instances/{id}?wait=}, at most {@link ApiPaths#MAX_WAIT} a request) asked again until the instance has ended
 * or the wait is over; then the exit code of how it ended ({@link ExitCodes#ofOutcome}).
 */
final class InstanceWait {

  /** The least time between two asks when a runtime answers a wait early without an end (one that ignores it). */
  private static final Duration PAUSE = Duration.ofSeconds(1);

  private InstanceWait() {}

  /** The instance once it has ended, or as it is when {@code wait} is over. */
  static InstanceDocument until(RuntimeClient client, InstanceDocument current, Duration wait) {
    Instant over = Instant.now().plus(wait);
    InstanceDocument i = current;
    while (!i.finished()) {
      Duration left = Duration.between(Instant.now(), over);
      if (left.toMillis() < 1) {
        break;
      }
      Duration ask = left.compareTo(ApiPaths.MAX_WAIT) < 0 ? left : ApiPaths.MAX_WAIT;
      Instant asked = Instant.now();
      i = client.getWaiting(ApiPaths.instance(i.id(), ask), InstanceDocument.class, ask);
      Duration took = Duration.between(asked, Instant.now());
      if (!i.finished() && took.compareTo(ask.dividedBy(2)) < 0 && ask.compareTo(PAUSE) > 0) {
        pause(); // a runtime that does not hold the request (older than ?wait=) is not asked in a tight loop
      }
    }
    return i;
  }

  /**
   * The exit code of the instance's outcome; when it has not ended, says so on {@code err} (the wait was over, not
   * the instance).
   */
  static int exitCode(InstanceDocument i, Duration wait, String command, PrintWriter err) {
    int code = ExitCodes.ofOutcome(i.status());
    if (code == ExitCodes.STILL_RUNNING) {
      err.println("baton " + command + ": instance " + i.id() + " is still " + i.status() + " after waiting "
          + dev.baton.cli.support.BatonDurationConverter.format(wait) + " (wait more: baton get instance " + i.id()
          + " --wait)");
      err.flush();
    }
    return code;
  }

  private static void pause() {
    try {
      Thread.sleep(PAUSE.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCodes.SERVER_ERROR, "interrupted");
    }
  }
}
