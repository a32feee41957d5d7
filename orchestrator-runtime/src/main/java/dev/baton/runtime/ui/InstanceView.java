package dev.baton.runtime.ui;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.httpapi.AuditEntry;
import dev.baton.httpapi.InstanceLink;
import dev.baton.httpapi.MapIterations;
import dev.baton.httpapi.MapIterations.Iteration;
import dev.baton.httpapi.StepDocument;
import dev.baton.runtime.core.StateMachine;
import dev.baton.workflow.StepKind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One instance as the UI shows it: the instance document of the API (docs/design.md#interfaces) folded into one
 * {@link StepView} per step, oldest first, with its dispatches and its compensation; who started it and every action
 * taken on it ({@code audit}, oldest first; empty for instances older than the audit); {@code instanceDeadline}: when
 * the whole instance times out (its Workflow's {@code spec.timeout}), or null; {@code maps}: each map step's
 * iterations, folded (by the map's name) — their rows are there, not in {@code steps}, which a map of 10,000 items
 * would otherwise fill; {@code parent}: the instance whose child workflow step started this one, or null;
 * {@code children}: the instances this one's child workflow steps started (in maps' iterations too), by the step row
 * that started each ({@code invoice}, {@code invoice[3]}).
 */
record InstanceView(String id, String namespace, String workflow, int revision, String businessKey, String status,
    String phase, String currentStep, int attempt, Instant since, Instant deadline, Failure lastError,
    Instant createdAt, Instant updatedAt, Instant finishedAt, JsonNode input, JsonNode outputs, List<StepView> steps,
    String traceId, String createdBy, List<AuditEntry> audit, Instant instanceDeadline,
    Map<String, MapIterations> maps, InstanceLink parent, Map<String, InstanceLink> children) {

  /** An error as the document has it: which step (and dispatch) failed how. */
  record Failure(String step, String kind, String status, String code, String reason, Instant at) {
    String text() {
      String c = code == null || code.isBlank() ? "" : code;
      String r = reason == null || reason.isBlank() ? "" : reason;
      return c.isEmpty() ? r : r.isEmpty() ? c : c + ": " + r;
    }
  }

  /** One dispatch of a step or of its compensation. */
  record Dispatch(String action, String status, int attempt, Instant startedAt, Instant finishedAt, JsonNode output,
      Failure error) {
    Optional<Duration> duration(Instant now) {
      if (startedAt == null) {
        return Optional.empty();
      }
      return Optional.of(Duration.between(startedAt, finishedAt == null ? now : finishedAt));
    }
  }

  /**
   * A step: its kind, the enclosing step ({@code parent}, null at the top), its latest dispatch (what its status,
   * attempt and times are), every dispatch, the latest dispatch of its compensation, if one ran, for a choice
   * the case it took ({@code 0}, {@code 1}, … or {@code otherwise}; null before it decided), and for a child
   * workflow step the instance it started ({@code child}; null before it started one, and for the other kinds).
   */
  record StepView(String name, StepKind kind, String parent, Dispatch latest, List<Dispatch> dispatches,
      Dispatch compensation, String chosen, InstanceLink child) {
    /** A step that started no child instance. */
    StepView(String name, StepKind kind, String parent, Dispatch latest, List<Dispatch> dispatches,
        Dispatch compensation, String chosen) {
      this(name, kind, parent, latest, dispatches, compensation, chosen, null);
    }

    String status() {
      return latest.status();
    }

    /** Whether its latest dispatch failed because its child instance ended otherwise than SUCCEEDED. */
    boolean failedByItsChild() {
      return latest.error() != null && StateMachine.CHILD_FAILED.equals(latest.error().code());
    }
  }

  /** Still moving: the page keeps refreshing and cancel applies. */
  boolean active() {
    return "RUNNING".equals(status) || "COMPENSATING".equals(status);
  }

  Optional<StepView> step(String name) {
    return steps.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** The instance a child workflow step's row started ({@code invoice}, {@code invoice[3]}), if it started one. */
  Optional<InstanceLink> childOf(String row) {
    return Optional.ofNullable(children.get(row));
  }

  /** The iteration a step runs in ({@code ship-one[3]}: iteration 3 of its map), when it runs in one. */
  Optional<Iteration> iterationOf(String step) {
    return maps.values().stream().map(m -> m.iterationOf(step)).flatMap(Optional::stream).findFirst();
  }

  /** The names of the wait steps waiting for their signal now, in iterations too: where the signal form applies. */
  List<String> waiting() {
    Stream<String> top = steps.stream().filter(s -> s.kind() == StepKind.WAIT && "RUNNING".equals(s.status()))
        .map(StepView::name);
    Stream<String> inIterations = maps.values().stream().flatMap(m -> m.iterations().stream())
        .flatMap(i -> i.steps().stream()).filter(s -> "wait".equals(s.kind()) && "RUNNING".equals(s.status()))
        .map(StepDocument::name);
    return Stream.concat(top, inIterations).toList();
  }
}
