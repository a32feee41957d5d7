package dev.baton.runtime.ui;

import static dev.baton.runtime.ui.Html.esc;
import static dev.baton.runtime.ui.Html.url;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import dev.baton.httpapi.AuditEntry;
import dev.baton.httpapi.InstanceLink;
import dev.baton.httpapi.MapIterations;
import dev.baton.httpapi.MapIterations.Iteration;
import dev.baton.httpapi.StepDocument;
import dev.baton.runtime.core.StateMachine;
import dev.baton.runtime.ui.InstanceView.Dispatch;
import dev.baton.runtime.ui.InstanceView.Failure;
import dev.baton.runtime.ui.InstanceView.StepView;
import dev.baton.workflow.StepKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /ui/instances/{id}}: the picture of the steps, the facts that say where the instance is (and, for a child
 * instance, its parent), the buttons, and every step as a row of text (name, status, attempt, times, duration, error,
 * output; a child workflow step's child instance); under a map's row, its iterations folded: counts by status, and a
 * list of the first {@link #ITERATIONS_LISTED} (failed first). An instance's page is {@link #href}.
 */
final class InstanceDetailView {

  /** The iterations a map's list shows: a map of 10,000 items keeps a page (refreshed every 1.5 s) small. */
  static final int ITERATIONS_LISTED = 100;

  /**
   * What the buttons can do on this runtime; {@code signal}: the signal a waiting step waits for (the form's
   * suggestion), empty when none waits.
   */
  record Abilities(boolean compensatingCancel, boolean signals, String signal) {
    Abilities(boolean compensatingCancel, boolean signals) {
      this(compensatingCancel, signals, "");
    }

    Abilities waitingFor(String signal) {
      return new Abilities(compensatingCancel, signals, signal == null ? "" : signal);
    }
  }

  private InstanceDetailView() {}

  /** The page of an instance, for a link to it: {@code /ui/instances/<id>}. */
  static String href(String id) {
    return "instances/" + url(id);
  }

  static String page(InstanceView i, StepPicture picture, Abilities can, Viewer viewer, String notice,
      boolean error, Instant now, TraceLink traces) {
    StringBuilder b = new StringBuilder();
    b.append("<p class=\"muted\"><a href=\"./\">Workflows</a> / <a href=\"workflows/")
        .append(url(i.namespace())).append('/').append(url(i.workflow())).append("\">").append(esc(i.workflow()))
        .append("</a></p><h1>").append(esc(i.businessKey())).append(" <span class=\"muted mono\">")
        .append(esc(i.id())).append("</span></h1>");
    b.append(Layout.notice(notice, error));
    b.append(live(i, picture, can, viewer, now, traces));
    return Layout.page(i.workflow() + " " + i.businessKey(), Layout.Section.WORKFLOWS, viewer, b.toString());
  }

  static String live(InstanceView i, StepPicture picture, Abilities can, Viewer viewer, Instant now,
      TraceLink traces) {
    StringBuilder b = new StringBuilder("<div id=\"live\"").append(i.active() ? " data-live=\"1500\"" : "")
        .append(" data-status=\"").append(esc(i.status())).append("\">");
    facts(b, i, now, traces);
    actions(b, i, can, viewer);
    b.append("<h2>Steps</h2><div class=\"picture-wrap\">")
        .append(StepPictureSvg.render(picture, href(i.id()), i.workflow() + " steps: " + i.status(), now)).append("</div>");
    table(b, i, picture, now);
    audit(b, i);
    b.append("<h2>Data</h2>");
    json(b, "Input", i.input(), "input");
    json(b, "Outputs by step", i.outputs(), "outputs");
    return b.append("</div>").toString();
  }

  static void facts(StringBuilder b, InstanceView i, Instant now, TraceLink traces) {
    b.append("<div class=\"card\"><dl class=\"facts\">")
        .append("<dt>Status</dt><dd id=\"instance-status\">").append(Html.badge(i.status()))
        .append(i.active() ? " <span class=\"muted\">refreshing live</span>" : "").append("</dd>")
        .append(i.active() ? "<dt>Current step</dt>" : "<dt>Stopped at</dt>").append("<dd id=\"current-step\">").append(esc(where(i)))
        .append(", attempt ").append(i.attempt())
        .append("</dd>");
    if (i.parent() != null) {
      parent(b, i.parent());
    }
    if (i.active() && i.since() != null) {
      b.append("<dt>Since</dt><dd>").append(Html.time(i.since())).append(" (")
          .append(Html.duration(Duration.between(i.since(), now))).append(" ago)</dd>");
    }
    if (i.deadline() != null) {
      b.append("<dt>Deadline</dt><dd>").append(Html.time(i.deadline())).append("</dd>");
    }
    if (i.lastError() != null) {
      // after a retry the instance keeps its last error: once it runs or has succeeded again, that is history
      boolean past = "RUNNING".equals(i.status()) || "SUCCEEDED".equals(i.status());
      b.append(past ? "<dt>Earlier error</dt><dd id=\"last-error\" class=\"muted\">"
          : "<dt>Last error</dt><dd id=\"last-error\" class=\"status-failed\">");
      String step = i.lastError().step();
      Optional<Iteration> iteration = step == null ? Optional.empty() : i.iterationOf(step);
      if (iteration.isPresent()) { // one of thousands of iterations: a link to it in its map's list
        b.append("<a href=\"").append(href(i.id())).append('#').append(iterationId(iteration.get())).append("\">").append(esc(step)).append("</a>");
      } else {
        b.append(esc(step));
      }
      b.append(": ").append(esc(i.lastError().text())).append("</dd>");
    }
    b.append("<dt>Workflow</dt><dd>").append(esc(i.namespace())).append('/').append(esc(i.workflow()))
        .append(", revision ").append(i.revision()).append("</dd>")
        .append("<dt>Started</dt><dd>").append(Html.time(i.createdAt()));
    if (i.createdBy() != null) {
      b.append(" by <span id=\"created-by\" class=\"mono\">").append(esc(i.createdBy())).append("</span>");
    }
    b.append("</dd>");
    if (i.instanceDeadline() != null && i.finishedAt() == null) {
      b.append("<dt>Times out</dt><dd id=\"instance-deadline\">").append(Html.time(i.instanceDeadline()))
          .append(" <span class=\"muted\">(the Workflow's spec.timeout)</span></dd>");
    }
    if (i.traceId() != null && !i.traceId().isEmpty()) {
      b.append("<dt>Trace</dt><dd id=\"trace\" class=\"mono\">").append(traces.html(i.traceId())).append("</dd>");
    }
    b
        .append("<dt>Finished</dt><dd>").append(Html.time(i.finishedAt()));
    if (i.finishedAt() != null && i.createdAt() != null) {
      b.append(" (took ").append(Html.duration(Duration.between(i.createdAt(), i.finishedAt()))).append(')');
    }
    b.append("</dd></dl></div>");
  }

  /**
   * The instance whose child workflow step started this one: its Workflow linked to its page, the step, its status;
   * only its id once the purge has taken it.
   */
  private static void parent(StringBuilder b, InstanceLink p) {
    b.append("<dt>Parent</dt><dd id=\"parent\">");
    if (p.workflow() == null && p.status() == null) {
      b.append("<span class=\"mono\">").append(esc(p.id())).append("</span>, step <span class=\"mono\">")
          .append(esc(p.step())).append("</span> <span class=\"muted\">(no longer kept)</span></dd>");
      return;
    }
    b.append("<a id=\"parent-link\" href=\"").append(esc(href(p.id()))).append("\">")
        .append(esc(p.workflow() == null ? p.id() : p.workflow()))
        .append("</a>, step <span class=\"mono\">").append(esc(p.step())).append("</span> ")
        .append(Html.badge(p.status())).append(" <span class=\"muted mono\">").append(esc(p.id()))
        .append("</span></dd>");
  }

  /**
   * A child instance, next to the step that started it: its Workflow linked to its page, and its status — in red
   * when it is why the step failed ({@code failedTheStep}), whatever it ended as (failed, compensated, cancelled).
   */
  private static void child(StringBuilder b, InstanceLink c, boolean failedTheStep) {
    b.append("<span class=\"child\" id=\"child-").append(esc(url(c.step()))).append("\">↳ <a href=\"")
        .append(esc(href(c.id()))).append("\" data-child=\"").append(esc(c.id())).append("\" title=\"child instance ")
        .append(esc(c.id())).append("\">").append(esc(c.workflow() == null ? c.id() : c.workflow())).append("</a> ")
        .append(failedTheStep ? "<span class=\"badge status-failed\">" + esc(c.status()) + "</span>"
            : Html.badge(c.status()))
        .append("</span>");
  }

  /** The current step in words: a compensation is named after the step it undoes. */
  static String where(InstanceView i) {
    return InstanceViewAdapter.place(i.currentStep(), i.phase());
  }

  private static void actions(StringBuilder b, InstanceView i, Abilities can, Viewer viewer) {
    boolean retry = "FAILED".equals(i.status());
    boolean signal = can.signals() && i.active();
    if (!i.active() && !retry) {
      return;
    }
    String base = "instances/" + esc(i.id());
    String disabled = viewer.mayChange() ? "" : " disabled title=\"read-only session\"";
    b.append("<div class=\"card actions\" id=\"actions\">");
    if (i.active()) {
      b.append("<form method=\"post\" action=\"").append(base).append("/cancel\" id=\"cancel-form\"")
          .append(" data-confirm=\"Cancel this instance?\">").append(viewer.csrfField());
      if (can.compensatingCancel()) {
        b.append("<label class=\"inline\"><span><input type=\"checkbox\" name=\"compensate\" value=\"true\"")
            .append(" id=\"cancel-compensate\"> compensate completed steps first</span></label>");
      }
      b.append("<button class=\"danger\" type=\"submit\" id=\"cancel\"").append(disabled)
          .append(">Cancel</button></form>");
    }
    if (retry) {
      b.append("<form method=\"post\" action=\"").append(base).append("/retry\" id=\"retry-form\"")
          .append(" data-confirm=\"Send the failed step again?\">").append(viewer.csrfField())
          .append("<button type=\"submit\" id=\"retry\"").append(disabled).append(">Retry ")
          .append(esc(where(i))).append("</button></form>");
    }
    if (signal) {
      String suggested = can.signal();
      b.append("<form method=\"post\" action=\"").append(base).append("/signal\" id=\"signal-form\" data-keep>")
          .append(viewer.csrfField())
          .append("<label>Signal<input name=\"signal\" id=\"signal-name\" required value=\"").append(esc(suggested))
          .append("\"></label><label>JSON body<textarea name=\"body\" id=\"signal-body\">{}</textarea></label>")
          .append("<button type=\"submit\" id=\"signal\"").append(disabled).append(">Send signal</button></form>");
    }
    b.append("</div>");
  }

  /** Who did what to the instance, oldest first: the audit (docs/design.md#security). */
  private static void audit(StringBuilder b, InstanceView i) {
    if (i.audit().isEmpty()) {
      return;
    }
    b.append("<h2>Actions</h2><table class=\"cards\" id=\"audit\"><thead><tr><th>Action</th><th>By</th>")
        .append("<th>At</th><th>From</th><th>Detail</th></tr></thead><tbody>");
    for (AuditEntry a : i.audit()) {
      b.append("<tr data-action=\"").append(esc(a.action())).append("\"><td data-label=\"Action\">")
          .append(esc(a.action())).append("</td><td data-label=\"By\" class=\"mono\">").append(esc(a.user()))
          .append("</td><td data-label=\"At\">").append(Html.time(a.at())).append("</td><td data-label=\"From\"")
          .append(" class=\"mono\">").append(esc(a.source() == null ? "" : a.source()))
          .append("</td><td data-label=\"Detail\">").append(esc(a.detail() == null ? "" : a.detail()))
          .append("</td></tr>");
    }
    b.append("</tbody></table>");
  }

  private static void table(StringBuilder b, InstanceView i, StepPicture picture, Instant now) {
    b.append("<table class=\"cards\" id=\"steps\"><thead><tr><th>Step</th><th>Status</th><th>Attempt</th>")
        .append("<th>Started</th><th>Finished</th><th>Duration</th><th>Error</th><th>Output</th></tr></thead><tbody>");
    // in the picture's order (top to bottom), then what the picture draws as frames (groups); the steps of a map's
    // body are in its list of iterations
    java.util.Set<String> shown = new java.util.HashSet<>();
    for (StepPicture.Box box : picture.boxes()) {
      shown.add(box.name());
      if (box.body() != null) {
        continue;
      }
      if (box.step() != null) {
        row(b, box.step(), now);
      } else {
        b.append("<tr id=\"step-").append(esc(url(box.name()))).append("\" data-step=\"").append(esc(box.name()))
            .append("\" data-status=\"").append(esc(box.status())).append("\"><td data-label=\"Step\"><b>")
            .append(esc(box.name())).append("</b>")
            .append(box.workflow() == null ? "" : "<br><span class=\"muted\">↳ " + esc(box.workflow()) + "</span>")
            .append("</td><td data-label=\"Status\">").append(Html.badge(box.status()))
            .append("</td><td colspan=\"6\" class=\"muted\">not dispatched</td></tr>");
      }
    }
    for (StepView s : i.steps()) {
      if (!shown.contains(s.name())) {
        row(b, s, now);
        MapIterations iterations = i.maps().get(s.name());
        if (iterations != null) {
          iterations(b, iterations, i.lastError() == null ? null : i.lastError().step(), i.children());
        }
      }
    }
    b.append("</tbody></table>");
  }

  /**
   * A map's iterations, folded: its counts as the summary of a list of the first {@link #ITERATIONS_LISTED}, the one
   * the last error names first, then failed ones, open when any failed; each with its index, status and the latest
   * attempt of each step inside it, and the child instance of a child workflow step ({@code children}, by row).
   */
  private static void iterations(StringBuilder b, MapIterations m, String lastErrorStep,
      Map<String, InstanceLink> children) {
    String map = m.map().name();
    b.append("<tr class=\"iterations\" id=\"iterations-").append(esc(url(map))).append("\" data-map=\"")
        .append(esc(map)).append("\"><td colspan=\"8\"><details id=\"iterations-of-").append(esc(url(map)))
        .append('"').append(m.anyFailed() ? " open" : "").append("><summary>Iterations: ").append(esc(m.summary()))
        .append("</summary><ol class=\"iterations\">");
    Optional<Iteration> named = lastErrorStep == null ? Optional.empty() : m.iterationOf(lastErrorStep);
    List<Iteration> listed = new ArrayList<>(m.iterations().size());
    named.ifPresent(listed::add);
    m.iterations().stream().filter(it -> named.isEmpty() || it != named.get()).forEach(listed::add);
    for (Iteration it : listed.subList(0, Math.min(ITERATIONS_LISTED, listed.size()))) {
      b.append("<li id=\"").append(iterationId(it)).append("\" data-iteration=\"").append(it.index())
          .append("\" data-status=\"").append(esc(it.status())).append("\"><b>#").append(it.index()).append("</b> ")
          .append(Html.badge(it.status())).append("<ul>");
      for (StepDocument s : it.steps()) {
        Failure error = InstanceViewAdapter.failure(s);
        b.append("<li><span class=\"mono\">").append(esc(s.name())).append("</span> ").append(Html.badge(s.status()));
        if (error != null) {
          b.append(" <span class=\"").append("CANCELLED".equals(s.status()) ? "muted" : "status-failed").append("\">")
              .append(esc(error.text())).append("</span>");
        }
        InstanceLink c = "workflow".equals(s.kind()) && !s.isCompensation() ? children.get(s.name()) : null;
        if (c != null) {
          b.append(' ');
          child(b, c, error != null && StateMachine.CHILD_FAILED.equals(error.code()));
        }
        b.append("</li>");
      }
      b.append("</ul></li>");
    }
    b.append("</ol>");
    int more = listed.size() - ITERATIONS_LISTED;
    if (more > 0) {
      b.append("<p class=\"muted\" id=\"iterations-more-").append(esc(url(map))).append("\">and ")
          .append(String.format(Locale.ROOT, "%,d", more))
          .append(" more iterations (the instance's document, GET /api/v1/instances/{id}, has every one)</p>");
    }
    b.append("</details></td></tr>");
  }

  /** The anchor of an iteration in its map's list: {@code iteration-ship-items%5B3%5D}. */
  private static String iterationId(Iteration it) {
    return "iteration-" + esc(url(it.row().name()));
  }

  private static void row(StringBuilder b, StepView s, Instant now) {
    Dispatch d = s.latest();
    b.append("<tr id=\"step-").append(esc(url(s.name()))).append("\" data-step=\"").append(esc(s.name()))
        .append("\" data-status=\"").append(esc(d.status())).append("\"><td data-label=\"Step\"><b>")
        .append(esc(s.name())).append("</b>");
    if (s.kind() != StepKind.TASK || s.parent() != null) {
      b.append(" <span class=\"muted\">").append(s.kind().wireName())
          .append(s.parent() == null ? "" : " in " + esc(s.parent())).append("</span>");
    }
    if (s.child() != null) {
      b.append("<br>");
      child(b, s.child(), s.failedByItsChild());
      b.append("</td>");
    } else {
      b.append("<br><span class=\"muted\">").append(esc(d.action())).append("</span></td>");
    }
    cells(b, d, now, "step-" + s.name());
    if (s.dispatches().size() > 1) {
      b.append("<tr class=\"compensation\"><td colspan=\"8\"><details id=\"history-").append(esc(url(s.name())))
          .append("\"><summary>").append(s.dispatches().size()).append(" dispatches</summary><ul>");
      for (Dispatch h : s.dispatches()) {
        b.append("<li>#").append(h.attempt()).append(' ').append(Html.badge(h.status())).append(' ')
            .append(Html.time(h.startedAt())).append(h.error() == null ? "" : " " + esc(h.error().text()))
            .append("</li>");
      }
      b.append("</ul></details></td></tr>");
    }
    if (s.compensation() != null) {
      Dispatch c = s.compensation();
      b.append("<tr class=\"compensation\" id=\"compensation-").append(esc(url(s.name())))
          .append("\" data-compensation=\"").append(esc(s.name())).append("\" data-status=\"").append(esc(c.status()))
          .append("\"><td data-label=\"Compensation\">↺ compensate <b>").append(esc(s.name()))
          .append("</b><br><span class=\"muted\">").append(esc(c.action())).append("</span></td>");
      cells(b, c, now, "compensation-" + s.name());
    }
  }

  private static void cells(StringBuilder b, Dispatch d, Instant now, String key) {
    b.append("<td data-label=\"Status\">").append(Html.badge(d.status())).append("</td>")
        .append("<td data-label=\"Attempt\" class=\"num\">").append(d.attempt()).append("</td>")
        .append("<td data-label=\"Started\">").append(Html.time(d.startedAt())).append("</td>")
        .append("<td data-label=\"Finished\">").append(Html.time(d.finishedAt())).append("</td>")
        .append("<td data-label=\"Duration\">").append(d.duration(now).map(Html::duration).orElse(""))
        .append(d.finishedAt() == null && d.startedAt() != null ? " so far" : "").append("</td>")
        .append("<td data-label=\"Error\" class=\"").append("CANCELLED".equals(d.status()) ? "muted" : "status-failed")
        .append("\">")
        .append(d.error() == null ? "" : esc(d.error().text())).append("</td><td data-label=\"Output\">");
    if (d.output() != null && !d.output().isMissingNode() && !d.output().isNull()) {
      b.append("<details id=\"out-").append(esc(url(key))).append("\"><summary>")
          .append(esc(StepPictureSvg.cut(d.output().toString(), 40))).append("</summary><pre>")
          .append(esc(pretty(d.output()))).append("</pre></details>");
    }
    b.append("</td></tr>");
  }

  private static void json(StringBuilder b, String title, JsonNode node, String id) {
    b.append("<details class=\"card\" id=\"").append(id).append("\"><summary>").append(esc(title)).append("</summary><pre>")
        .append(esc(pretty(node))).append("</pre></details>");
  }

  private static String pretty(JsonNode node) {
    try {
      return Json.PRETTY.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      return String.valueOf(node);
    }
  }
}
