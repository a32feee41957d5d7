package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.support.Json;
import dev.baton.cli.support.Table;
import dev.baton.cli.support.Times;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;

/** Instances as the commands show them: the list table, and {@code describe}'s "where is it, since when, and why". */
final class Instances {

  private static final int MAX_INPUT = 300;

  private Instances() {}

  static String path(String id) {
    return "/api/v1/instances/" + RuntimeClient.encode(id);
  }

  static String listPath(String namespace, String workflow) {
    return "/api/v1/namespaces/" + RuntimeClient.encode(namespace) + "/workflows/" + RuntimeClient.encode(workflow)
        + "/instances";
  }

  static Table table(Iterable<JsonNode> instances, Instant now) {
    Table t = new Table("ID", "WORKFLOW", "BUSINESS KEY", "STATUS", "STEP", "ATTEMPT", "AGE");
    for (JsonNode i : instances) {
      t.row(Json.text(i, "id"), Json.text(i, "workflow"), Json.text(i, "businessKey"), Json.text(i, "status"),
          step(i), Json.text(i, "attempt"), Times.age(Times.parse(Json.text(i, "createdAt")), now));
    }
    return t;
  }

  /** The current (or last) step, marked when it is a compensation ({@code <step>/compensate}). */
  static String step(JsonNode i) {
    return marked(Json.text(i, "currentStep"));
  }

  private static final String COMPENSATION_SUFFIX = "/compensate";

  static boolean isCompensation(String stepName) {
    return stepName.endsWith(COMPENSATION_SUFFIX);
  }

  /** The step a compensation undoes. */
  static String undone(String stepName) {
    return isCompensation(stepName) ? stepName.substring(0, stepName.length() - COMPENSATION_SUFFIX.length())
        : stepName;
  }

  private static String marked(String step) {
    return isCompensation(step) ? undone(step) + " (compensation)" : step;
  }

  static boolean isActive(JsonNode i) {
    String status = Json.text(i, "status");
    return "RUNNING".equals(status) || "COMPENSATING".equals(status);
  }

  /** {@code describe}: the instance in a few lines, then the timeline of its executions, compensations marked. */
  static void describe(PrintWriter out, JsonNode i, Instant now) {
    String revision = Json.text(i, "revision");
    field(out, "Instance", Json.text(i, "id"));
    field(out, "Workflow", Json.text(i, "namespace") + "/" + Json.text(i, "workflow")
        + (revision.isEmpty() ? "" : " (revision " + revision + ")"));
    field(out, "Business key", Json.text(i, "businessKey"));
    field(out, "Status", Json.text(i, "status"));
    String trace = Json.text(i, "traceId");
    if (!trace.isEmpty()) {
      field(out, "Trace", trace); // the instance's trace id, to search a trace UI or the logs (traceId) by
    }
    field(out, isActive(i) ? "Waiting on" : "Last step", where(i, now));
    JsonNode error = i.get("lastError");
    if (error != null && !error.isNull()) {
      field(out, "Last error", lastError(error, now));
    }
    JsonNode input = i.get("input");
    if (input != null && !input.isNull()) {
      String text = input.toString();
      field(out, "Input", text.length() <= MAX_INPUT ? text : text.substring(0, MAX_INPUT) + "... (-o json shows all)");
    }
    Instant created = Times.parse(Json.text(i, "createdAt"));
    field(out, "Created", Times.dateTime(created) + " (" + Times.age(created, now) + " ago)");
    Instant finished = Times.parse(Json.text(i, "finishedAt"));
    if (finished != null) {
      field(out, "Finished", Times.dateTime(finished) + " (" + Times.age(finished, now) + " ago, took "
          + Times.span(Duration.between(created == null ? finished : created, finished)) + ")");
    }
    out.println();
    JsonNode steps = i.path("steps");
    if (!steps.isArray() || steps.isEmpty()) {
      out.println("No step has been dispatched yet.");
    } else {
      out.println("Timeline (one row per step attempt, oldest first; IN is the enclosing step; compensations marked):");
      timeline(steps, now).print(out);
    }
    out.flush();
  }

  private static String where(JsonNode i, Instant now) {
    String step = Json.text(i, "currentStep");
    if (step.isEmpty()) {
      return "-";
    }
    StringBuilder sb = new StringBuilder(step(i)).append(", attempt ").append(Json.text(i, "attempt"));
    Instant since = Times.parse(Json.text(i, "since"));
    if (since != null) {
      sb.append(", since ").append(Times.clockOrDate(since, now)).append(" (").append(Times.age(since, now)).append(" ago)");
    }
    Instant deadline = Times.parse(Json.text(i, "deadline"));
    if (deadline != null && isActive(i)) {
      sb.append(deadline.isAfter(now)
          ? ", times out at " + Times.clockOrDate(deadline, now) + " (in " + Times.age(now, deadline) + ")"
          : ", timed out at " + Times.clockOrDate(deadline, now));
    }
    return sb.toString();
  }

  private static String lastError(JsonNode e, Instant now) {
    String step = Json.text(e, "step");
    String action = Json.text(e, "action");
    StringBuilder sb = new StringBuilder(undone(step));
    sb.append(" (").append(isCompensation(step) ? "compensation " : "").append(action.isEmpty() ? "" : action)
        .append(", attempt ").append(Json.text(e, "attempt")).append("): ");
    sb.append(Json.text(e, "status")).append(' ').append(Json.text(e, "errorCode"));
    String reason = Json.text(e, "reason");
    if (!reason.isEmpty()) {
      sb.append(": ").append(reason);
    }
    Instant at = Times.parse(Json.text(e, "at"));
    if (at != null) {
      sb.append(" (").append(Times.age(at, now)).append(" ago)");
    }
    return sb.toString();
  }

  private static Table timeline(JsonNode steps, Instant now) {
    Table t = new Table("#", "STEP", "KIND", "IN", "ACTION", "ATTEMPT", "STATUS", "STARTED", "TOOK", "ERROR");
    int n = 0;
    for (JsonNode s : steps) {
      Instant started = Times.parse(Json.text(s, "startedAt"));
      Instant finished = Times.parse(Json.text(s, "finishedAt"));
      String took = started == null ? ""
          : finished == null ? "running " + Times.age(started, now) : Times.span(Duration.between(started, finished));
      String name = Json.text(s, "name");
      boolean compensation = isCompensation(name);
      String chosen = Json.text(s, "chosen");
      String kind = compensation ? "<- compensation" : Json.text(s, "kind") + (chosen.isEmpty() ? "" : " -> " + chosen);
      t.row(++n, undone(name), kind, Json.text(s, "parent"), Json.text(s, "action"), Json.text(s, "attempt"),
          Json.text(s, "status"), Times.clock(started), took, error(s.get("error")));
    }
    return t;
  }

  private static String error(JsonNode e) {
    if (e == null || e.isNull()) {
      return "";
    }
    String code = Json.text(e, "code");
    String reason = Json.text(e, "reason");
    return reason.isEmpty() ? code : code.isEmpty() ? reason : code + ": " + reason;
  }

  private static void field(PrintWriter out, String name, String value) {
    out.printf("%-14s%s%n", name + ":", value);
  }
}
