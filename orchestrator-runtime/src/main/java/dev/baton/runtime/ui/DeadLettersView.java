package dev.baton.runtime.ui;

import static dev.baton.runtime.ui.Html.esc;
import static dev.baton.runtime.ui.Html.url;

import dev.baton.contract.Headers;
import dev.baton.deadletters.ParkedMessage;
import dev.baton.runtime.ui.DeadLetterDesk.QueueView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * {@code /ui/dead-letters}: the parking lots per service, each message with its reason, exception and original
 * routing key, and buttons to replay one or all (what {@code baton dlq replay} does). Not refreshed by itself:
 * looking at a queue takes its messages and puts them back, which polling would do over and over.
 */
final class DeadLettersView {

  private DeadLettersView() {}

  static String page(String vhost, Map<String, List<QueueView>> services, String service, Viewer viewer,
      String notice, boolean error, Instant now) {
    StringBuilder b = new StringBuilder("<h1>Dead letters</h1>");
    b.append(Layout.notice(notice, error));
    b.append("<p class=\"muted\">vhost <code>").append(esc(vhost)).append("</code>")
        .append(service == null ? "" : ", service <b>" + esc(service) + "</b> (<a href=\"dead-letters\">all</a>)")
        .append(". Messages are peeked (put back at once). <a href=\"dead-letters"
            + (service == null ? "" : "?service=" + esc(url(service))) + "\">Refresh</a></p>");
    if (services.isEmpty()) {
      b.append("<p class=\"card\" id=\"no-dead-letters\">No dead-letter queues.</p>");
    }
    long total = services.values().stream().flatMap(List::stream).mapToLong(QueueView::messages).sum();
    long queues = services.values().stream().flatMap(List::stream).filter(q -> q.messages() > 0).count();
    b.append("<p id=\"dead-letter-total\"><b>").append(total).append(" dead letter").append(total == 1 ? "" : "s")
        .append("</b>").append(total == 0 ? "." : " in " + queues + " queue" + (queues == 1 ? "" : "s") + ".")
        .append("</p>");
    String disabled = viewer.mayChange() ? "" : " disabled title=\"read-only session\"";
    // services with dead letters first; within a service, the empty queues on one line
    List<Map.Entry<String, List<QueueView>>> ordered = services.entrySet().stream()
        .sorted(java.util.Comparator.comparing((Map.Entry<String, List<QueueView>> e) ->
            e.getValue().stream().allMatch(q -> q.messages() == 0)).thenComparing(Map.Entry::getKey))
        .toList();
    for (Map.Entry<String, List<QueueView>> s : ordered) {
      b.append("<section class=\"card\" id=\"service-").append(esc(s.getKey())).append("\"><h2><a href=\"")
          .append("dead-letters?service=").append(url(s.getKey())).append("\">").append(esc(s.getKey()))
          .append("</a></h2>");
      List<String> empty = s.getValue().stream().filter(q -> q.messages() == 0).map(q -> q.queue().name()).toList();
      for (QueueView q : s.getValue()) {
        if (q.messages() == 0) {
          continue;
        }
        String name = q.queue().name();
        b.append("<h3 class=\"mono\" id=\"queue-").append(esc(name)).append("\">").append(esc(name))
            .append(" <span class=\"badge ").append(q.messages() > 0 ? "status-failed" : "status-succeeded")
            .append("\" data-count=\"").append(q.messages()).append("\">").append(q.messages()).append(" message")
            .append(q.messages() == 1 ? "" : "s").append("</span></h3>");
        if (q.messages() > 0) {
          b.append("<form method=\"post\" action=\"dead-letters/replay\" data-confirm=\"Replay every message of ")
              .append(esc(name)).append("?\">").append(viewer.csrfField()).append("<input type=\"hidden\" name=\"queue\"")
              .append(" value=\"").append(esc(name)).append("\"><button type=\"submit\" class=\"secondary\"")
              .append(" data-replay-all=\"").append(esc(name)).append('"').append(disabled)
              .append(">Replay all</button></form>");
        }
        if (q.peeked().isEmpty()) {
          continue;
        }
        b.append("<table class=\"cards\"><thead><tr><th>Message</th><th>Original routing key</th>")
            .append("<th>Reason</th><th>Instance / step</th><th>Age</th><th></th></tr></thead><tbody>");
        for (ParkedMessage m : q.peeked()) {
          row(b, name, m, viewer.csrfField(), disabled, now);
        }
        b.append("</tbody></table>");
        if (q.messages() > q.peeked().size()) {
          b.append("<p class=\"muted\">The first ").append(q.peeked().size()).append(" of ").append(q.messages())
              .append(" are shown.</p>");
        }
      }
      if (!empty.isEmpty()) {
        b.append("<p class=\"muted\">Empty: <span class=\"mono\">").append(esc(String.join(", ", empty)))
            .append("</span></p>");
      }
      b.append("</section>");
    }
    return Layout.page("Dead letters", Layout.Section.DEAD_LETTERS, viewer, b.toString());
  }

  private static void row(StringBuilder b, String queue, ParkedMessage m, String csrfField, String disabled,
      Instant now) {
    String instance = m.header(Headers.INSTANCE);
    b.append("<tr data-message-id=\"").append(esc(m.messageId())).append("\"><td data-label=\"Message\"")
        .append(" class=\"mono\">").append(esc(m.messageId())).append("<details><summary>body</summary><pre>")
        .append(esc(m.payload())).append("</pre></details></td>")
        .append("<td data-label=\"Original routing key\" class=\"mono\">").append(esc(m.routingKey())).append("</td>")
        .append("<td data-label=\"Reason\"><span class=\"status-failed\">").append(esc(m.header(Headers.EXCEPTION_MESSAGE)))
        .append("</span><br><span class=\"muted mono\">").append(esc(m.header(Headers.EXCEPTION_TYPE)))
        .append("</span></td><td data-label=\"Instance / step\">");
    if (!instance.isEmpty()) {
      b.append("<a class=\"mono\" href=\"instances/").append(esc(url(instance))).append("\">").append(esc(instance))
          .append("</a>");
    }
    b.append("<br>").append(esc(m.header(Headers.STEP))).append("</td><td data-label=\"Age\">")
        .append(m.timestamp() == null ? "" : Html.duration(Duration.between(m.timestamp(), now)))
        .append("</td><td><form method=\"post\" action=\"dead-letters/replay\">")
        .append(csrfField)
        .append("<input type=\"hidden\" name=\"queue\" value=\"").append(esc(queue)).append("\">")
        .append("<input type=\"hidden\" name=\"messageId\" value=\"").append(esc(m.messageId())).append("\">")
        .append("<button type=\"submit\" data-replay=\"").append(esc(m.messageId())).append('"').append(disabled)
        .append(">Replay</button></form></td></tr>");
  }
}
