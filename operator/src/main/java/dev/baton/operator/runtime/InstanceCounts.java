package dev.baton.operator.runtime;

import dev.baton.api.v1alpha1.ScheduleStatus;
import dev.baton.api.v1alpha1.WorkflowStatus;
import dev.baton.httpapi.CountsResponse.ScheduleReport;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the runtime reports of a Workflow: its instances by outcome ({@code running} = RUNNING + COMPENSATING) and
 * where each of its schedules stands. Shown by {@code kubectl get workflows} (the fires with {@code -o wide});
 * informational only, they never change a condition.
 *
 * @param schedules by name, empty for a Workflow without schedules
 */
public record InstanceCounts(long running, long succeeded, long failed, long compensated, long cancelled,
    List<ScheduleReport> schedules) {

  /** What a Workflow the runtime did not mention has. */
  public static final InstanceCounts NONE = new InstanceCounts(0, 0, 0, 0, 0);

  public InstanceCounts {
    schedules = schedules == null ? List.of() : List.copyOf(schedules);
  }

  /** Counts of a Workflow without schedules. */
  public InstanceCounts(long running, long succeeded, long failed, long compensated, long cancelled) {
    this(running, succeeded, failed, compensated, cancelled, List.of());
  }

  /** The counts a status shows, empty when it shows none (or only some). */
  public static Optional<InstanceCounts> of(WorkflowStatus status) {
    if (status == null || status.getRunning() == null || status.getSucceeded() == null || status.getFailed() == null
        || status.getCompensated() == null || status.getCancelled() == null) {
      return Optional.empty();
    }
    List<ScheduleReport> schedules = status.getSchedules() == null ? List.of() : status.getSchedules().stream()
        .map(s -> new ScheduleReport(s.getName(), s.getLastFire(), s.getNextFire(), s.getLastBusinessKey(),
            s.getBufferedFire()))
        .toList();
    return Optional.of(new InstanceCounts(status.getRunning(), status.getSucceeded(), status.getFailed(),
        status.getCompensated(), status.getCancelled(), schedules));
  }

  /** A status that shows no counts (none known yet). */
  public static void clear(WorkflowStatus status) {
    status.setRunning(null);
    status.setSucceeded(null);
    status.setFailed(null);
    status.setCompensated(null);
    status.setCancelled(null);
    status.setSchedules(null);
    status.setNextFire(null);
    status.setLastFire(null);
  }

  public void applyTo(WorkflowStatus status) {
    status.setRunning(running);
    status.setSucceeded(succeeded);
    status.setFailed(failed);
    status.setCompensated(compensated);
    status.setCancelled(cancelled);
    status.setSchedules(schedules.isEmpty() ? null : schedules.stream()
        .map(s -> new ScheduleStatus(s.name(), s.lastFire(), s.nextFire(), s.lastBusinessKey(), s.bufferedFire()))
        .toList());
    // The soonest next fire and the latest last one, for the wide columns.
    Comparator<String> byTime = Comparator.comparing(Instant::parse);
    status.setNextFire(schedules.stream().map(ScheduleReport::nextFire).filter(Objects::nonNull).min(byTime)
        .orElse(null));
    status.setLastFire(schedules.stream().map(ScheduleReport::lastFire).filter(Objects::nonNull).max(byTime)
        .orElse(null));
  }
}
