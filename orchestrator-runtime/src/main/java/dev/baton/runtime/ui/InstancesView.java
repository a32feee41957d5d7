package dev.baton.runtime.ui;

import static dev.baton.runtime.ui.Html.esc;
import static dev.baton.runtime.ui.Html.url;

import dev.baton.runtime.ui.InstancePage.Row;
import java.time.Duration;
import java.time.Instant;

/** {@code /ui/workflows/{ns}/{name}}: a workflow's instances, filtered, newest first, a page at a time. */
final class InstancesView {

  /** The filters and position of one listing. */
  record Query(String namespace, String workflow, String status, String businessKey, String after, int limit) {
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 200;

    String path() {
      return "workflows/" + url(namespace) + "/" + url(workflow);
    }

    /** The filters (and a page size other than the default) as they carry over to the next page's link. */
    String filters() {
      return (status == null ? "" : "&status=" + url(status)) + (businessKey == null ? "" : "&businessKey="
          + url(businessKey)) + (limit == DEFAULT_LIMIT ? "" : "&limit=" + limit);
    }

    /** A page size from a link: 1 to {@link #MAX_LIMIT}, the default when absent or not a number. */
    static int limit(String text) {
      try {
        return text == null ? DEFAULT_LIMIT : Math.max(1, Math.min(MAX_LIMIT, Integer.parseInt(text.trim())));
      } catch (NumberFormatException e) {
        return DEFAULT_LIMIT;
      }
    }
  }

  private InstancesView() {}

  static String page(Query q, InstancePage page, Instant now, Viewer viewer) {
    StringBuilder b = new StringBuilder();
    b.append("<p class=\"muted\"><a href=\"./\">Workflows</a> / ").append(esc(q.namespace())).append("</p>")
        .append("<h1>").append(esc(q.workflow())).append("</h1>");
    b.append("<form class=\"filters\" method=\"get\" action=\"").append(q.path()).append("\">")
        .append("<label>Status<select name=\"status\"><option value=\"\">any</option>");
    for (String s : WorkflowBoard.STATUSES) {
      b.append("<option").append(s.equals(q.status()) ? " selected" : "").append('>').append(s).append("</option>");
    }
    b.append("</select></label><label>Business key<input name=\"businessKey\" value=\"")
        .append(esc(q.businessKey())).append("\" placeholder=\"exact key\"></label>")
        .append("<button type=\"submit\">Filter</button>");
    if (q.status() != null || q.businessKey() != null) {
      b.append(" <a href=\"").append(q.path()).append("\">clear</a>");
    }
    b.append("</form>");
    if (viewer.mayChange()) {
      b.append("<p><a id=\"act-on-these\" href=\"").append(esc(actOnThese(q))).append("\">Act on these…</a>")
          .append(" <span class=\"muted\">(cancel, retry or signal every instance that matches, in bulk)</span></p>");
    }
    b.append(live(q, page, now));
    return Layout.page(q.workflow() + " instances", Layout.Section.WORKFLOWS, viewer, b.toString());
  }

  /**
   * The bulk operation form with this listing's Workflow and status (an exact business key is left out: a bulk
   * operation's filter takes a prefix, which would widen it).
   */
  static String actOnThese(Query q) {
    return "operations/new?namespace=" + url(q.namespace()) + "&workflow=" + url(q.workflow())
        + (q.status() == null ? "" : "&status=" + url(q.status()))
        + ("RUNNING".equals(q.status()) ? "&action=cancel" : ""); // a failed one is retried, a running one stopped
  }

  static String live(Query q, InstancePage page, Instant now) {
    StringBuilder b = new StringBuilder("<div id=\"live\"").append(q.after() == null ? " data-live=\"2000\"" : "")
        .append('>');
    if (page.rows().isEmpty()) {
      b.append("<p class=\"card\">No instances").append(q.status() == null && q.businessKey() == null ? ""
          : " match these filters").append(q.after() == null ? "." : " on this page.").append("</p>");
    } else {
      b.append("<table class=\"cards\" id=\"instances\"><thead><tr><th>Business key</th><th>Status</th>")
          .append("<th>Current step</th><th>Attempt</th><th>Age</th><th>Started</th><th>Last error</th>")
          .append("</tr></thead><tbody>");
      for (Row r : page.rows()) {
        b.append("<tr id=\"i-").append(r.id()).append("\"><td data-label=\"Business key\"><a href=\"instances/")
            .append(r.id()).append("\">").append(esc(r.businessKey())).append("</a><br><span class=\"muted mono\" title=\"")
            .append(r.id()).append("\">").append(r.id().toString(), 0, 8).append("…</span></td>")
            .append("<td data-label=\"Status\">").append(Html.badge(r.status())).append("</td>")
            .append("<td data-label=\"Current step\">").append(esc(InstanceViewAdapter.place(r.currentStep(), null)))
            .append("</td>")
            .append("<td data-label=\"Attempt\" class=\"num\">").append(r.attempt()).append("</td>")
            .append("<td data-label=\"Age\">").append(r.finishedAt() == null ? "" : "took ")
            .append(Html.duration(Duration.between(r.createdAt(), r.finishedAt() == null ? now : r.finishedAt())))
            .append("</td><td data-label=\"Started\">").append(Html.time(r.createdAt())).append("</td>")
            .append("<td data-label=\"Last error\">").append(esc(r.lastError())).append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
    b.append("<nav class=\"pager\" aria-label=\"pages\">");
    if (q.after() != null) {
      b.append("<a href=\"").append(q.path()).append("?").append(q.filters().replaceFirst("^&", ""))
          .append("\">« newest</a>");
    }
    page.next().ifPresent(c -> b.append("<a id=\"older\" href=\"").append(q.path()).append("?after=")
        .append(url(c.format())).append(q.filters()).append("\">older »</a>"));
    return b.append("</nav></div>").toString();
  }
}
