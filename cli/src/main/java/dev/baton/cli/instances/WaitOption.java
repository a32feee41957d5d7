package dev.baton.cli.instances;

import dev.baton.cli.support.BatonDurationConverter;
import java.time.Duration;
import picocli.CommandLine.Option;

/** {@code --wait[=DURATION]}: wait for the instance to end, and exit with how it ended. */
final class WaitOption {

  /** How long {@code --wait} alone waits. */
  static final String WHEN_NOT_SAID = "10m";

  @Option(names = "--wait", arity = "0..1", paramLabel = "DURATION", fallbackValue = WHEN_NOT_SAID,
      converter = BatonDurationConverter.class,
      description = "Wait until the instance has ended, at most DURATION (--wait alone: " + WHEN_NOT_SAID
          + "), then show it and exit with its outcome: 0 SUCCEEDED, 4 FAILED, 5 COMPENSATED, 6 CANCELLED, 7 not"
          + " ended when the wait was over.")
  Duration wait;

  boolean asked() {
    return wait != null;
  }
}
