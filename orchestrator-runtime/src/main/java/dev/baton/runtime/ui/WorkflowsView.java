package dev.baton.runtime.ui;

import static dev.baton.runtime.ui.Html.esc;
import static dev.baton.runtime.ui.Html.url;

import dev.baton.runtime.ui.WorkflowBoard.Row;
import dev.baton.runtime.ui.WorkflowBoard.StepLine;
import java.util.Map;

/** {@code /ui/}: every Workflow with its live counts and where its unfinished instances are. */
final class WorkflowsView {

  private static final java.time.format.DateTimeFormatter FIRE_TIME =
      java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(java.time.ZoneOffset.UTC);

  private WorkflowsView() {}

  static String live(WorkflowBoard board) {
    StringBuilder b = new StringBuilder("<div id=\"live\" data-live=\"2000\">");
    if (board.rows().isEmpty()) {
      b.append("<p class=\"card\">No Workflows yet. Apply one (<code>kubectl apply -f examples/order-saga/</code>)"
          + " and start an instance.</p>");
    }
    b.append("<table class=\"cards\" id=\"workflows\"><thead><tr><th>Workflow</th><th>Revision</th>")
        .append("<th>Instances by status</th><th>At which step now (oldest waiting)</th></tr></thead><tbody>");
    for (Row r : board.rows()) {
      String id = "wf-" + r.namespace() + "-" + r.name();
      b.append("<tr id=\"").append(esc(id)).append("\" data-workflow=\"").append(esc(r.name())).append("\">");
      b.append("<td data-label=\"Workflow\"><a href=\"workflows/").append(url(r.namespace())).append('/')
          .append(url(r.name())).append("\"><b>").append(esc(r.name())).append("</b></a> <span class=\"muted\">")
          .append(esc(r.namespace())).append("</span>")
          .append(r.deleted() ? " <span class=\"badge status-cancelled\">resource deleted</span>" : "")
          .append(r.paused() ? " <span class=\"badge status-paused\" data-paused=\"true\" title=\"spec.paused: its commands wait and"
              + " its steps' timers stop until it is resumed\">paused</span>" : "")
          .append(r.nextFire() == null ? "" : "<br><span class=\"muted\" data-next-fire=\""
              + esc(r.nextFire().at().toString()) + "\">next: " + esc(r.nextFire().schedule()) + " at "
              + esc(FIRE_TIME.format(r.nextFire().at())) + "</span>")
          .append("<br><span class=\"muted\">").append(r.total()).append(" instance").append(r.total() == 1 ? "" : "s")
          .append("</span></td>");
      b.append("<td data-label=\"Revision\">").append(r.revision() == null ? "<span class=\"muted\">–</span>"
          : esc(r.revision())).append("</td>");
      b.append("<td data-label=\"Instances\"><div class=\"counts\">");
      for (Map.Entry<String, Long> c : r.counts().entrySet()) {
        b.append("<a class=\"count ").append(Html.statusClass(c.getKey())).append(c.getValue() > 0 ? " nonzero" : "")
            .append("\" data-status=\"").append(esc(c.getKey())).append("\" href=\"workflows/")
            .append(url(r.namespace())).append('/').append(url(r.name())).append("?status=").append(url(c.getKey()))
            .append("\">").append(esc(c.getKey().toLowerCase(java.util.Locale.ROOT))).append(" <b>")
            .append(c.getValue()).append("</b></a>");
      }
      b.append("</div></td><td data-label=\"At which step\"><ul class=\"steps-at\">");
      for (StepLine s : r.steps()) {
        b.append("<li data-step=\"").append(esc(s.step())).append("\"><span class=\"n")
            .append(s.count() == 0 ? " zero" : "").append("\">").append(s.count()).append("</span><span>")
            .append(esc(s.step())).append(s.compensating() ? " <span class=\"muted\">(compensating)</span>" : "");
        if (s.oldestWait() != null) {
          b.append(" <span class=\"muted\">oldest ").append(Html.duration(s.oldestWait())).append("</span>");
        }
        if (s.waitingForCapacity() > 0) {
          b.append(" <span class=\"badge status-waiting\" data-waiting-capacity=\"").append(s.waitingForCapacity())
              .append("\" title=\"its command's maxInFlight is reached: these wait their turn\">")
              .append(s.waitingForCapacity()).append(" waiting for capacity</span>");
        }
        b.append("</span></li>");
      }
      b.append("</ul></td></tr>");
    }
    return b.append("</tbody></table></div>").toString();
  }

  static String page(WorkflowBoard board, Viewer viewer) {
    return Layout.page("Workflows", Layout.Section.WORKFLOWS, viewer,
        "<h1>Workflows</h1><p class=\"muted\">Counts and steps refresh by themselves.</p>" + live(board));
  }
}
