package dev.baton.workflow.schedule;

import dev.baton.api.v1alpha1.Overlap;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * One schedule of a Workflow, parsed: when it fires, what it starts with, and what a fire does while the previous
 * instance still runs. Fire times are instants every runtime computes alike, so a fire's business key is the same
 * wherever it is handled.
 *
 * @param inputJson the input of every instance it starts, a JSON object
 */
public record Schedule(String name, Timing timing, String inputJson, Overlap overlap, Duration catchupWindow) {

  /** How late a missed fire may still start when the schedule does not say. */
  public static final Duration DEFAULT_CATCHUP_WINDOW = Duration.ofMinutes(1);

  /** When a schedule fires. */
  public sealed interface Timing {
    /** The first fire strictly after {@code t}, if there is one. */
    Optional<Instant> firstAfter(Instant t);

    /** The last fire strictly before {@code t}, if there is one. */
    Optional<Instant> lastBefore(Instant t);
  }

  /** A Unix cron expression read in a time zone. */
  public record Cron(String expression, ZoneId zone, com.cronutils.model.time.ExecutionTime times) implements Timing {
    @Override
    public Optional<Instant> firstAfter(Instant t) {
      return times.nextExecution(ZonedDateTime.ofInstant(t, zone)).map(ZonedDateTime::toInstant);
    }

    @Override
    public Optional<Instant> lastBefore(Instant t) {
      return times.lastExecution(ZonedDateTime.ofInstant(t, zone)).map(ZonedDateTime::toInstant);
    }
  }

  /** The multiples of a fixed interval since the epoch. */
  public record Every(Duration interval) implements Timing {
    @Override
    public Optional<Instant> firstAfter(Instant t) {
      long step = interval.toMillis();
      long next = Math.floorDiv(t.toEpochMilli(), step) * step + step;
      return Optional.of(Instant.ofEpochMilli(next));
    }

    @Override
    public Optional<Instant> lastBefore(Instant t) {
      long step = interval.toMillis();
      return Optional.of(Instant.ofEpochMilli(Math.floorDiv(t.toEpochMilli() - 1, step) * step));
    }
  }

  /** The business key of the instance a fire starts: {@code <schedule>@<fire time, RFC 3339 UTC>}. */
  public static String businessKey(String schedule, Instant fire) {
    return schedule + "@" + DateTimeFormatter.ISO_INSTANT.format(fire);
  }

  public String businessKey(Instant fire) {
    return businessKey(name, fire);
  }
}
