package dev.baton.httpapi;

import java.util.List;

/**
 * {@code GET /api/v1/counts}: instances per Workflow and status, for the operator's live columns of {@code kubectl get
 * workflows}. A Workflow not listed has none.
 */
public record CountsResponse(List<WorkflowCounts> items) {

  /** One Workflow's instances by status; {@code running} includes COMPENSATING. */
  public record WorkflowCounts(String namespace, String workflow, long running, long succeeded, long failed,
      long compensated, long cancelled) {}
}
