package dev.baton.runtime.ui;

import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.InstanceLink;
import dev.baton.httpapi.LastError;
import dev.baton.httpapi.StepDocument;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Instances of an order workflow whose child workflow step {@code invoice} starts an instance of {@code invoicing}
 * ({@link #SPEC}), and of one that starts an {@code invoicing} instance per item ({@link #MAP_SPEC}), as the runtime's
 * document has them: the parent with its {@code children}, a child with its {@code parent}.
 */
final class ChildInstances {

  static final Instant T = Instant.parse("2026-12-05T10:00:00Z");

  static final WorkflowSpec SPEC = spec("""
      {"steps": [
        {"name": "reserve", "service": "stock", "command": "reserve"},
        {"name": "invoice", "workflow": "invoicing", "input": {"order": "input.id"}, "timeout": "1h"},
        {"name": "ship", "service": "shipping", "command": "ship"}]}""");

  static final WorkflowSpec MAP_SPEC = spec("""
      {"steps": [
        {"name": "invoice-items", "map": {"items": "input.items",
         "steps": [{"name": "invoice", "workflow": "invoicing", "timeout": "1h"}]}}]}""");

  /** Why a child workflow step failed when its child ended {@code status}. */
  static final String CHILD_REASON = "child instance c-1 ended %s: tax service is down";

  private ChildInstances() {}

  /**
   * The parent {@code p-1} with its step {@code invoice} in {@code stepStatus}, its child {@code c-1} in
   * {@code childStatus} (a FAILED step failed because of its child: ChildFailed).
   */
  static InstanceDocument order(String status, String stepStatus, String childStatus) {
    List<StepDocument> steps = new ArrayList<>();
    steps.add(new StepDocument("reserve", "task", null, "reserve", "SUCCEEDED", 1, T, T.plusSeconds(1), null, null,
        null, null, "m-reserve", null));
    boolean failed = "FAILED".equals(stepStatus);
    StepDocument.StepError error = failed
        ? new StepDocument.StepError("ChildFailed", CHILD_REASON.formatted(childStatus)) : null;
    steps.add(new StepDocument("invoice", "workflow", null, null, stepStatus, 1, T.plusSeconds(1),
        "RUNNING".equals(stepStatus) ? null : T.plusSeconds(30), null, error, null, null, null, null));
    LastError lastError = failed ? new LastError("invoice", "workflow", null, 1, "FAILED", error.code(),
        error.reason(), T.plusSeconds(30)) : null;
    Instant finished = "RUNNING".equals(status) ? null : T.plusSeconds(60);
    return new InstanceDocument("p-1", "shop", "orders", 1, "order-7", null, status, "FORWARD", "invoice", 1,
        T.plusSeconds(1), null, null, lastError, T, T, finished, "alice", Json.object(), Json.object(), steps,
        List.of()).withLinks(null, List.of(new InstanceLink("invoice", "c-1", "invoicing", childStatus)));
  }

  /** The child {@code c-1} of {@link #order}'s step {@code invoice}, running; {@code parent}: its link, or null. */
  static InstanceDocument invoicing(InstanceLink parent) {
    List<StepDocument> steps = List.of(new StepDocument("issue", "task", null, "issue", "RUNNING", 1,
        T.plusSeconds(2), null, null, null, null, null, "m-issue", null));
    return new InstanceDocument("c-1", "shop", "invoicing", 3, "p-1/invoice", null, "RUNNING", "FORWARD", "issue", 1,
        T.plusSeconds(2), null, null, null, T.plusSeconds(1), T, null, "baton:instance:p-1", Json.object(),
        Json.object(), steps, List.of()).withLinks(parent, List.of());
  }

  /**
   * The parent {@code p-2}, whose map {@code invoice-items} started one iteration per status, each iteration's
   * {@code invoice[i]} a child {@code c-<i>} that ended (or runs) in that status; a child that did not succeed failed
   * its iteration.
   */
  static InstanceDocument perItem(List<String> statuses) {
    List<StepDocument> steps = new ArrayList<>();
    List<InstanceLink> children = new ArrayList<>();
    steps.add(new StepDocument("invoice-items", "map", null, null, "RUNNING", 1, T, null, null, null, null, null,
        null, statuses.size()));
    for (int i = 0; i < statuses.size(); i++) {
      String child = statuses.get(i);
      String step = "RUNNING".equals(child) || "SUCCEEDED".equals(child) ? child : "FAILED";
      StepDocument.StepError error = "FAILED".equals(step)
          ? new StepDocument.StepError("ChildFailed", "child instance c-" + i + " ended " + child) : null;
      Instant end = "RUNNING".equals(step) ? null : T.plusSeconds(10);
      steps.add(new StepDocument("invoice-items[" + i + "]", "iteration", "invoice-items", null, step, 1, T, end,
          null, null, null, null, null, null));
      steps.add(new StepDocument("invoice[" + i + "]", "workflow", "invoice-items[" + i + "]", null, step, 1, T,
          end, null, error, null, null, null, null));
      children.add(new InstanceLink("invoice[" + i + "]", "c-" + i, "invoicing", child));
    }
    return new InstanceDocument("p-2", "shop", "bulk-orders", 1, "bulk-1", null, "RUNNING", "FORWARD",
        "invoice-items", 1, T, null, null, null, T, T, null, "alice", Json.object(), Json.object(), steps, List.of())
        .withLinks(null, children);
  }

  private static WorkflowSpec spec(String json) {
    return Json.MAPPER.convertValue(Json.readObject(json), WorkflowSpec.class);
  }
}
