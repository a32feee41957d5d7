package dev.baton.httpapi;

import java.util.List;

/**
 * {@code GET /api/v1/routes}: per Workflow with unfinished instances, the revisions they run and the result bindings
 * those revisions need (to {@code q.orchestrator.W}), so the operator keeps them bound after an edit. A Workflow not
 * listed needs none beyond its spec's. 503 until the runtime has read them.
 */
public record RoutesResponse(List<WorkflowRoutes> items) {

  public record WorkflowRoutes(String namespace, String workflow, List<Integer> revisions, List<Binding> bindings) {}

  /** A service's event exchange and a result routing key {@code <entity>.<action>.<result>}. */
  public record Binding(String exchange, String routingKey) {}
}
