package dev.baton.cli.instances;

import dev.baton.cli.support.Table;
import dev.baton.cli.support.Times;
import dev.baton.httpapi.AuditEntry;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.InstanceLink;
import dev.baton.httpapi.LastError;
import dev.baton.httpapi.MapIterations;
import dev.baton.httpapi.MapIterations.Iteration;
import dev.baton.httpapi.StepDocument;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/** Instances as the commands show them: the list table, and {@code describe}'s "where is it, since when, and why". */
final class Instances {

  private static final int MAX_INPUT = 300;
  /** The iterations {@code describe} lists per map: a map of 10,000 items stays a screenful. */
  static final int ITERATIONS_LISTED = 20;
  /** The child instances {@code describe} lists: a map's iterations can start thousands. */
  static final int CHILDREN_LISTED = 20;

  private Instances() {}

  /**
   * One line on an instance after {@code cancel}, {@code retry} or {@code signal}: "instance ID (WORKFLOW, business key
   * KEY): " and what follows.
   */
  static String summary(InstanceDocument i) {
    return "instance " + i.id() + " (" + i.workflow() + ", business key " + i.businessKey() + "): ";
  }

  /**
   * One line on how an instance ended after {@code --wait} (its status, and its last error when it did not succeed),
   * or where it still is when the wait was over.
   */
  static String outcome(InstanceDocument i, Instant now) {
    String line = summary(i) + i.status();
    if (!i.finished()) {
      return line + " at " + step(i);
    }
    Instant created = i.createdAt();
    if (created != null && i.finishedAt() != null) {
      line += " after " + Times.span(Duration.between(created, i.finishedAt()));
    }
    return i.lastError() == null || "SUCCEEDED".equals(i.status()) ? line
        : line + "; last error: " + lastError(i.lastError(), now);
  }

  /** The current (or last) step, marked when it is a compensation ({@code <step>/compensate}). */
  static String step(InstanceDocument i) {
    return marked(text(i.currentStep()));
  }

  static boolean isCompensation(String stepName) {
    return stepName.endsWith(StepDocument.COMPENSATION_SUFFIX);
  }

  /** The step a compensation undoes. */
  static String undone(String stepName) {
    return isCompensation(stepName)
        ? stepName.substring(0, stepName.length() - StepDocument.COMPENSATION_SUFFIX.length()) : stepName;
  }

  private static String marked(String step) {
    return isCompensation(step) ? undone(step) + " (compensation)" : step;
  }

  static boolean isActive(InstanceDocument i) {
    return "RUNNING".equals(i.status()) || "COMPENSATING".equals(i.status());
  }

  /**
   * {@code describe}: the instance in a few lines (the parent that started it, if one did), then the timeline of its
   * executions, compensations marked, each map's iterations folded under it, and the child instances its child
   * workflow steps started.
   */
  static void describe(PrintWriter out, InstanceDocument i, Instant now) {
    field(out, "Instance", i.id());
    field(out, "Workflow", i.namespace() + "/" + i.workflow()
        + (i.revision() > 0 ? " (revision " + i.revision() + ")" : ""));
    field(out, "Business key", i.businessKey());
    if (i.parent() != null) {
      field(out, "Parent", parent(i.parent()));
    }
    field(out, "Status", i.status());
    String trace = text(i.traceId());
    if (!trace.isEmpty()) {
      field(out, "Trace", trace); // the instance's trace id, to search a trace UI or the logs (traceId) by
    }
    field(out, isActive(i) ? "Waiting on" : "Last step", where(i, now));
    Instant deadline = i.instanceDeadline();
    if (deadline != null) { // spec.timeout: the whole instance's
      field(out, "Deadline", Times.clockOrDate(deadline, now) + (!isActive(i) ? ""
          : deadline.isAfter(now) ? " (in " + Times.age(now, deadline) + ", then it times out)"
          : " (passed " + Times.age(deadline, now) + " ago)"));
    }
    if (i.lastError() != null) {
      field(out, "Last error", lastError(i.lastError(), now));
    }
    if (i.input() != null && !i.input().isNull()) {
      String text = i.input().toString();
      field(out, "Input", text.length() <= MAX_INPUT ? text : text.substring(0, MAX_INPUT) + "... (-o json shows all)");
    }
    Instant created = i.createdAt();
    field(out, "Created", Times.dateTime(created) + " (" + Times.age(created, now) + " ago)"
        + (text(i.createdBy()).isEmpty() ? "" : " by " + i.createdBy()));
    Instant finished = i.finishedAt();
    if (finished != null) {
      field(out, "Finished", Times.dateTime(finished) + " (" + Times.age(finished, now) + " ago, took "
          + Times.span(Duration.between(created == null ? finished : created, finished)) + ")");
    }
    out.println();
    List<StepDocument> steps = i.steps();
    if (steps == null || steps.isEmpty()) {
      out.println("No step has been dispatched yet.");
    } else {
      out.println("Timeline (one row per step attempt, oldest first; IN is the enclosing step; compensations marked;"
          + " a map's iterations folded below it):");
      timeline(steps, now).print(out);
      String failedStep = i.lastError() == null ? null : i.lastError().step();
      for (MapIterations m : MapIterations.of(steps).values()) {
        out.println();
        iterations(out, m, failedStep, now);
      }
    }
    List<InstanceLink> children = i.children();
    if (children != null && !children.isEmpty()) {
      out.println();
      children(out, children);
    }
    List<AuditEntry> audit = i.audit();
    if (audit != null && !audit.isEmpty()) {
      out.println();
      out.println("Actions (who did what to this instance, oldest first):");
      Table t = new Table("AT", "ACTION", "USER", "FROM", "DETAIL");
      audit.forEach(a -> t.row(Times.clockOrDate(a.at(), now), a.action(), a.user(), a.source(), a.detail()));
      t.print(out);
    }
    out.flush();
  }

  /** {@code <id> (orders, step invoice, RUNNING)}; only the step once the purge has taken the parent. */
  private static String parent(InstanceLink p) {
    if (p.workflow() == null && p.status() == null) {
      return p.id() + " (step " + text(p.step()) + "; no longer kept)";
    }
    return p.id() + " (" + text(p.workflow()) + ", step " + text(p.step()) + ", " + text(p.status()) + ")";
  }

  /**
   * The instances the child workflow steps started, the first {@link #CHILDREN_LISTED}: those that ended otherwise
   * than SUCCEEDED first, then running, cancelled and succeeded ones ({@link MapIterations#FAILED_FIRST}).
   */
  private static void children(PrintWriter out, List<InstanceLink> children) {
    out.println("Children (the instances its child workflow steps started; baton describe <id> shows one):");
    List<InstanceLink> listed = new ArrayList<>(children);
    listed.sort(Comparator.comparing(InstanceLink::status, MapIterations.FAILED_FIRST));
    Table t = new Table("STEP", "ID", "WORKFLOW", "STATUS");
    listed.subList(0, Math.min(CHILDREN_LISTED, listed.size()))
        .forEach(c -> t.row(c.step(), c.id(), c.workflow(), c.status()));
    t.print(out);
    int more = listed.size() - CHILDREN_LISTED;
    if (more > 0) {
      out.println(String.format(Locale.ROOT, "... %,d more child instances (-o json shows every one)", more));
    }
  }

  /** The most steps in flight "Waiting on" names; a map's running iterations are counted beyond. */
  static final int IN_FLIGHT_NAMED = 3;

  /**
   * Where an instance is: while it is active, the steps in flight (the last one started may have ended already: an
   * iteration of a map, a branch); once it has ended, the step it stopped at. The deadline is the nearer of its
   * steps' and its own.
   */
  private static String where(InstanceDocument i, Instant now) {
    if (text(i.currentStep()).isEmpty()) {
      return "-";
    }
    List<StepDocument> inFlight = isActive(i) && i.steps() != null ? inFlight(i.steps()) : List.of();
    StringBuilder sb;
    if (inFlight.isEmpty()) {
      sb = new StringBuilder(step(i)).append(", attempt ").append(i.attempt());
    } else {
      StepDocument first = inFlight.get(0);
      sb = new StringBuilder(marked(first.name())).append(", attempt ").append(first.attempt());
      for (StepDocument other : inFlight.subList(1, Math.min(IN_FLIGHT_NAMED, inFlight.size()))) {
        sb.append("; ").append(marked(other.name()));
      }
      if (inFlight.size() > IN_FLIGHT_NAMED) {
        sb.append(String.format(Locale.ROOT, " and %,d more", inFlight.size() - IN_FLIGHT_NAMED));
      }
    }
    Instant since = inFlight.isEmpty() ? i.since() : inFlight.get(0).startedAt();
    if (since != null) {
      sb.append(", since ").append(Times.clockOrDate(since, now)).append(" (").append(Times.age(since, now)).append(" ago)");
    }
    Instant deadline = i.deadline() == null ? i.instanceDeadline()
        : i.instanceDeadline() != null && i.instanceDeadline().isBefore(i.deadline()) ? i.instanceDeadline()
        : i.deadline();
    if (deadline != null && isActive(i)) {
      sb.append(deadline.isAfter(now)
          ? ", times out at " + Times.clockOrDate(deadline, now) + " (in " + Times.age(now, deadline) + ")"
          : ", timed out at " + Times.clockOrDate(deadline, now));
    }
    return sb.toString();
  }

  /** The latest attempts in flight of the steps that do something (not the groups around them), oldest first. */
  static List<StepDocument> inFlight(List<StepDocument> steps) {
    java.util.Map<String, StepDocument> latest = new java.util.LinkedHashMap<>();
    for (StepDocument s : steps) {
      latest.merge(s.name(), s, (a, b) -> b.attempt() >= a.attempt() ? b : a);
    }
    return latest.values().stream().filter(s -> "RUNNING".equals(s.status()))
        .filter(s -> !java.util.Set.of("parallel", "choice", "map", "iteration").contains(s.kind())).toList();
  }

  private static String lastError(LastError e, Instant now) {
    String step = text(e.step());
    if (step.isEmpty()) { // the instance's own failure, no step's (its deadline passed with nothing in flight)
      return text(e.status()) + " " + text(e.errorCode()) + (text(e.reason()).isEmpty() ? "" : ": " + e.reason())
          + (e.at() == null ? "" : " (" + Times.age(e.at(), now) + " ago)");
    }
    StringBuilder sb = new StringBuilder(undone(step));
    // a step that sends no command (a child workflow step, a wait) by its kind
    String action = text(e.action()).isEmpty() ? text(e.kind()) : e.action();
    sb.append(" (").append(isCompensation(step) ? "compensation " : "").append(action)
        .append(", attempt ").append(e.attempt()).append("): ");
    sb.append(text(e.status())).append(' ').append(text(e.errorCode()));
    String reason = text(e.reason());
    if (!reason.isEmpty()) {
      sb.append(": ").append(reason);
    }
    if (e.at() != null) {
      sb.append(" (").append(Times.age(e.at(), now)).append(" ago)");
    }
    return sb.toString();
  }

  /** The attempts outside any map's iterations: those are {@link #iterations}' (thousands of rows, else). */
  private static Table timeline(List<StepDocument> steps, Instant now) {
    Table t = new Table("#", "STEP", "KIND", "IN", "ACTION", "ATTEMPT", "STATUS", "STARTED", "TOOK", "ERROR");
    int n = 0;
    for (StepDocument s : steps) {
      if (MapIterations.inIteration(s)) {
        continue;
      }
      String chosen = text(s.chosen());
      String kind = s.isCompensation() ? "<- compensation" : text(s.kind()) + (chosen.isEmpty() ? "" : " -> " + chosen);
      t.row(++n, undone(text(s.name())), kind, s.parent(), s.action(), s.attempt(), s.status(),
          Times.clock(s.startedAt()), took(s, now), error(s.error()));
    }
    return t;
  }

  /**
   * A map's iterations: its counts by status, then the first {@link #ITERATIONS_LISTED} — the one the last error
   * names ({@code failedStep}) first, then failed ones, running ones, the rest — each with the step it is at or
   * stopped at.
   */
  private static void iterations(PrintWriter out, MapIterations m, String failedStep, Instant now) {
    out.println("Iterations of " + m.map().name() + ": " + m.summary());
    List<Iteration> listed = new ArrayList<>(m.iterations());
    Optional<Iteration> named = failedStep == null ? Optional.empty() : m.iterationOf(failedStep);
    named.ifPresent(it -> {
      listed.remove(it);
      listed.add(0, it);
    });
    if (listed.isEmpty()) {
      return;
    }
    Table t = new Table("ITEM", "STATUS", "STARTED", "TOOK", "STEP", "STEP STATUS", "ERROR");
    for (Iteration it : listed.subList(0, Math.min(ITERATIONS_LISTED, listed.size()))) {
      // where it is, or where it stopped: the step inside it that started last
      StepDocument at = it.steps().isEmpty() ? null : it.steps().get(it.steps().size() - 1);
      t.row(it.index(), it.status(), Times.clock(it.row().startedAt()), took(it.row(), now),
          at == null ? "" : undone(at.name()) + (at.isCompensation() ? " (compensation)" : ""),
          at == null ? "" : at.status(), error(at != null && at.error() != null ? at.error() : it.row().error()));
    }
    t.print(out);
    int more = listed.size() - ITERATIONS_LISTED;
    if (more > 0) {
      out.println(String.format(Locale.ROOT, "... %,d more iterations started (-o json shows every one)", more));
    }
  }

  private static String took(StepDocument s, Instant now) {
    Instant started = s.startedAt();
    Instant finished = s.finishedAt();
    return started == null ? ""
        : finished == null ? "running " + Times.age(started, now) : Times.span(Duration.between(started, finished));
  }

  private static String error(StepDocument.StepError e) {
    if (e == null) {
      return "";
    }
    String code = text(e.code());
    String reason = text(e.reason());
    return reason.isEmpty() ? code : code.isEmpty() ? reason : code + ": " + reason;
  }

  /** A field of a document as text: "" when absent. */
  private static String text(String value) {
    return Objects.requireNonNullElse(value, "");
  }

  private static void field(PrintWriter out, String name, String value) {
    out.printf("%-14s%s%n", name + ":", value);
  }
}
