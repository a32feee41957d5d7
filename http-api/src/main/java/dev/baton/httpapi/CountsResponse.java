package dev.baton.httpapi;

import java.util.List;

/**
 * {@code GET /api/v1/counts}: instances per Workflow and status, and where each of its schedules stands, for the
 * operator's live columns of {@code kubectl get workflows}. A Workflow not listed has no instances and no schedules.
 */
public record CountsResponse(List<WorkflowCounts> items) {

  /**
   * One Workflow's instances by status ({@code running} includes COMPENSATING) and its schedules.
   *
   * @param schedules by name; empty (or absent, from an older runtime) without schedules
   */
  public record WorkflowCounts(String namespace, String workflow, long running, long succeeded, long failed,
      long compensated, long cancelled, List<ScheduleReport> schedules) {

    public WorkflowCounts {
      schedules = schedules == null ? List.of() : List.copyOf(schedules);
    }
  }

  /**
   * Where one schedule stands; times are RFC 3339 (UTC), null where there is none.
   *
   * @param lastFire the latest fire handled (started, skipped or missed)
   * @param lastBusinessKey the business key of the instance it started last
   * @param bufferedFire a fire waiting for the running instance to end (overlap BufferOne)
   */
  public record ScheduleReport(String name, String lastFire, String nextFire, String lastBusinessKey,
      String bufferedFire) {}
}
