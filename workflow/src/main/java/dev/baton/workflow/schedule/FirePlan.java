package dev.baton.workflow.schedule;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one look at a schedule decides (docs/design.md#schedules): which fires start an instance now, which are
 * skipped (the previous instance still runs) or missed (older than the catch-up window), and where the schedule
 * stands afterwards. Pure: the runtime applies it in the transaction that holds the schedule's row, so two runtimes
 * looking at once decide one after the other, and a crash before the commit leaves the fires to the next look.
 *
 * @param starts the fires to start now, oldest first
 * @param lastFire the latest fire handled (started, buffered, skipped or missed); unchanged when none was due
 * @param bufferedFire the fire waiting for the running instance to end (overlap BufferOne), or null
 * @param skipped fires skipped because the previous instance still ran
 * @param missed fires older than the catch-up window, counted up to {@link #MOST_FIRES_PER_LOOK}
 * @param nextFire the first fire after now (and after {@code lastFire}), or null when the schedule has none left
 */
public record FirePlan(List<Instant> starts, Instant lastFire, Instant bufferedFire, int skipped, int missed,
    Instant nextFire) {

  /**
   * The most fires one look handles: an {@code every: 1s} schedule with {@code overlap: Allow} coming back from an hour
   * without a runtime starts its catch-up in bounded transactions, the rest at the next looks.
   */
  public static final int MOST_FIRES_PER_LOOK = 100;

  /**
   * Where a schedule stood before this look.
   *
   * @param lastFire the latest fire handled so far (the moment the schedule was first seen, before any fire)
   * @param bufferedFire the fire waiting for the running instance, or null
   * @param previousRunning whether the instance the schedule started last is still running (or compensating)
   */
  public record Standing(Instant lastFire, Instant bufferedFire, boolean previousRunning) {}

  public static FirePlan decide(Schedule schedule, Standing standing, Instant now) {
    List<Instant> starts = new ArrayList<>();
    boolean running = standing.previousRunning();
    Instant buffered = standing.bufferedFire();
    if (buffered != null && !running) {
      starts.add(buffered);
      buffered = null;
      running = true;
    }
    Schedule.Timing timing = schedule.timing();
    Instant catchupFrom = now.minus(schedule.catchupWindow());
    Instant last = standing.lastFire();
    int missed = 0;
    Optional<Instant> next = timing.firstAfter(last);
    if (next.isPresent() && next.get().isBefore(catchupFrom)) {
      // Fires too old to start: counted (up to a bound), then passed over in one jump, however many there are.
      Instant lastMissed = timing.lastBefore(catchupFrom).orElseThrow();
      for (Optional<Instant> m = next; m.isPresent() && !m.get().isAfter(lastMissed) && missed < MOST_FIRES_PER_LOOK;
          m = timing.firstAfter(m.get())) {
        missed++;
      }
      last = lastMissed;
      next = timing.firstAfter(last);
    }
    int skipped = 0;
    int handled = 0;
    while (next.isPresent() && !next.get().isAfter(now) && handled < MOST_FIRES_PER_LOOK) {
      Instant fire = next.get();
      handled++;
      last = fire;
      next = timing.firstAfter(fire);
      switch (schedule.overlap()) {
        case Allow -> starts.add(fire);
        case Skip -> {
          if (running) {
            skipped++;
          } else {
            starts.add(fire);
            running = true;
          }
        }
        case BufferOne -> {
          if (!running) {
            starts.add(fire);
            running = true;
          } else if (buffered == null) {
            buffered = fire;
          } else {
            skipped++;
          }
        }
      }
    }
    // When more fires were due than one look handles, the next is one of them, due now: the next look takes it.
    Instant nextFire = next.orElse(null);
    return new FirePlan(List.copyOf(starts), last, buffered, skipped, missed, nextFire);
  }
}
