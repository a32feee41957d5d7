package dev.baton.runtime.ui;

import static dev.baton.runtime.ui.Html.esc;
import static dev.baton.runtime.ui.Html.url;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.httpapi.InvalidRequest;
import dev.baton.httpapi.OperationDocument;
import dev.baton.httpapi.OperationRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Bulk operations (docs/design.md#web-ui): select instances by the search's filters ({@code /ui/operations/new}),
 * confirm with the count they match now ({@code /ui/operations/confirm}, a dry run), watch it run
 * ({@code /ui/operations/{id}}, refreshed live while RUNNING). The operation is the API's
 * ({@code POST /api/v1/operations}), built and checked by the same {@link OperationRequest}.
 */
final class OperationsView {

  /** The form's actions, as its select offers them. */
  static final Map<String, String> ACTIONS = actions();
  /** The search's fields an operation's filter takes, in the form's order, with their labels. */
  static final Map<String, String> FILTERS = filters();

  /** What the form asks for: an action of {@link #ACTIONS}, the filter's fields given, a signal and its body. */
  record Ask(String action, Map<String, String> filter, String signal, String body) {

    /** From a request's query parameters or form fields; blank ones are left out. */
    static Ask from(Function<String, String> param) {
      Map<String, String> filter = new LinkedHashMap<>();
      FILTERS.keySet().forEach(name -> {
        String v = blankToNull(param.apply(name));
        if (v != null) {
          filter.put(name, v);
        }
      });
      String action = blankToNull(param.apply("action"));
      return new Ask(action == null ? "retry" : action, filter, blankToNull(param.apply("signal")),
          blankToNull(param.apply("body")));
    }

    boolean isSignal() {
      return "signal".equals(action);
    }

    /** The query string that fills the form (or the confirmation) in again. */
    String query() {
      StringBuilder q = new StringBuilder("action=").append(url(action));
      filter.forEach((k, v) -> q.append('&').append(k).append('=').append(url(v)));
      if (isSignal()) {
        q.append(signal == null ? "" : "&signal=" + url(signal)).append(body == null ? "" : "&body=" + url(body));
      }
      return q.toString();
    }

    /**
     * The API's request for it, checked as the API checks a body.
     *
     * @throws InvalidRequest saying what is wrong (no filter, a bad status or time, a signal without a name, ...)
     */
    OperationRequest request(boolean dryRun) {
      if (!ACTIONS.containsKey(action)) {
        throw new InvalidRequest("choose what to do: one of " + String.join(", ", ACTIONS.values()));
      }
      ObjectNode json = Json.MAPPER.createObjectNode();
      json.put("action", action.startsWith("cancel") ? "cancel" : action);
      ObjectNode f = json.putObject("filter");
      filter.forEach(f::put);
      if (action.equals("cancel-compensate")) {
        json.put("compensate", true);
      }
      if (isSignal()) {
        if (signal != null) {
          json.put("signal", signal);
        }
        try {
          json.set("body", body == null ? Json.MAPPER.createObjectNode() : Json.MAPPER.readTree(body));
        } catch (JsonProcessingException e) {
          throw new InvalidRequest("the signal's body is not JSON: " + e.getOriginalMessage());
        }
      }
      json.put("dryRun", dryRun);
      try {
        return OperationRequest.parse(Json.MAPPER.writeValueAsString(json).getBytes(StandardCharsets.UTF_8));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }

    /** "Retry 3,000 instances of shop/order-fulfilment (status FAILED, error code PROVIDER_DOWN)?" */
    String question(long matched) {
      String what = count(matched) + " " + subject(filter);
      return switch (action) {
        case "cancel" -> "Cancel " + what + "?";
        case "cancel-compensate" -> "Cancel " + what + ", compensating their completed steps first?";
        case "signal" -> "Send signal " + signal + " to " + what + "?";
        default -> "Retry " + what + "?";
      };
    }

    /** The confirm button's words: "Retry 3,000 instances". */
    String button(long matched) {
      String verb = switch (action) {
        case "cancel", "cancel-compensate" -> "Cancel";
        case "signal" -> "Signal";
        default -> "Retry";
      };
      return verb + " " + count(matched);
    }
  }

  private OperationsView() {}

  // --- the form ------------------------------------------------------------------------------------------------

  /** {@code /ui/operations/new}: what to do, to which instances; counting them is the next page. */
  static String form(Ask ask, Viewer viewer, String error) {
    StringBuilder b = new StringBuilder();
    b.append("<p class=\"muted\"><a href=\"./\">Workflows</a> / bulk operations</p>")
        .append("<h1>Act on many instances</h1>").append(Layout.notice(error, true))
        .append("<p class=\"muted\">Choose what to do and which instances: the next page says how many match"
            + " before anything is done.</p>");
    if (!viewer.mayChange()) {
      b.append(Layout.notice("Signed in with the read-only token: you can count instances, acting on them needs the"
          + " full token.", false));
    }
    b.append("<form class=\"card\" method=\"get\" action=\"operations/confirm\" id=\"operation-form\">")
        .append("<div class=\"actions\"><label>Action<select name=\"action\" id=\"op-action\">");
    ACTIONS.forEach((value, label) -> b.append("<option value=\"").append(value).append('"')
        .append(value.equals(ask.action()) ? " selected" : "").append('>').append(esc(label)).append("</option>"));
    b.append("</select></label>")
        .append("<label>Signal (for a signal)<input name=\"signal\" id=\"op-signal\" value=\"")
        .append(esc(ask.signal())).append("\"></label></div>")
        .append("<label>Signal's JSON body<textarea name=\"body\" id=\"op-body\">")
        .append(esc(ask.body() == null ? "{}" : ask.body())).append("</textarea></label>")
        .append("<h2>Instances</h2><div class=\"filters\">");
    FILTERS.forEach((name, label) -> {
      String value = ask.filter().get(name);
      b.append("<label>").append(esc(label));
      if (name.equals("status")) {
        b.append("<select name=\"status\" id=\"op-status\"><option value=\"\">any</option>");
        for (String s : WorkflowBoard.STATUSES) {
          b.append("<option").append(s.equals(value) ? " selected" : "").append('>').append(s).append("</option>");
        }
        b.append("</select>");
      } else {
        b.append("<input name=\"").append(name).append("\" id=\"op-").append(name).append("\" value=\"")
            .append(esc(value)).append('"').append(name.startsWith("created") ? " placeholder=\"2026-12-05T02:00:00Z\""
                : "").append('>');
      }
      b.append("</label>");
    });
    b.append("</div><p><button type=\"submit\" id=\"count\">Count matching instances</button></p></form>");
    return Layout.page("Bulk operation", Layout.Section.OPERATIONS, viewer, b.toString());
  }

  // --- the confirmation ----------------------------------------------------------------------------------------

  /**
   * {@code /ui/operations/confirm}: the question with the count, and the button that creates the operation (disabled
   * for a read-only session, or with {@code refusal} when RBAC would refuse the action).
   */
  static String confirm(Ask ask, long matched, Viewer viewer, String refusal) {
    StringBuilder b = new StringBuilder();
    b.append("<p class=\"muted\"><a href=\"./\">Workflows</a> / <a href=\"operations\">bulk operations</a>")
        .append("</p><h1>Confirm</h1>");
    if (matched == 0) {
      b.append("<p class=\"card\" id=\"question\" data-matched=\"0\">No instance ").append(esc(subject(ask.filter())))
          .append(" matches: there is nothing to do.</p>");
    } else {
      b.append("<p class=\"card\" id=\"question\" data-matched=\"").append(matched).append("\">")
          .append(esc(ask.question(matched))).append("</p>");
      if (ask.isSignal()) {
        b.append("<p>Body: <code id=\"op-signal-body\">").append(esc(ask.body() == null ? "{}" : ask.body()))
            .append("</code></p>");
      }
      b.append(Layout.notice(refusal, true));
      boolean may = viewer.mayChange() && refusal == null;
      String disabled = may ? "" : " disabled title=\"" + (viewer.mayChange() ? "not allowed" : "read-only session")
          + "\"";
      b.append("<form class=\"actions\" method=\"post\" action=\"operations\" id=\"confirm-form\">")
          .append(viewer.csrfField()).append(hidden("action", ask.action()));
      ask.filter().forEach((k, v) -> b.append(hidden(k, v)));
      if (ask.isSignal()) {
        b.append(hidden("signal", ask.signal())).append(hidden("body", ask.body()));
      }
      b.append("<button type=\"submit\" id=\"confirm\"").append(ask.action().startsWith("cancel") ? " class=\"danger\""
          : "").append(disabled).append('>').append(esc(ask.button(matched))).append("</button></form>")
          .append("<p class=\"muted\">The count is as of now: instances started from the moment you confirm are not"
              + " part of the operation; one that has changed meanwhile may refuse the action (counted as"
              + " failed).</p>");
    }
    b.append("<p><a id=\"change\" href=\"operations/new?").append(esc(ask.query()))
        .append("\">Change the action or the filters</a></p>");
    return Layout.page("Confirm bulk operation", Layout.Section.OPERATIONS, viewer, b.toString());
  }

  private static String hidden(String name, String value) {
    return value == null ? "" : "<input type=\"hidden\" name=\"" + name + "\" value=\"" + esc(value) + "\">";
  }

  // --- the list ------------------------------------------------------------------------------------------------

  /** How many of the latest operations the list shows. */
  static final int LISTED = 50;

  /** {@code /ui/operations}: the latest operations the viewer may see, newest first, each with its progress. */
  static String list(List<OperationDocument> ops, Viewer viewer, Instant now) {
    StringBuilder b = new StringBuilder();
    b.append("<p class=\"muted\"><a href=\"./\">Workflows</a> / bulk operations</p>")
        .append("<h1>Bulk operations</h1><p><a class=\"button\" id=\"new-operation\" href=\"operations/new\">")
        .append("New bulk operation</a></p>");
    if (ops.isEmpty()) {
      b.append("<p class=\"card muted\" id=\"no-operations\">No bulk operations yet.</p>");
      return Layout.page("Bulk operations", Layout.Section.OPERATIONS, viewer, b.toString());
    }
    b.append(liveList(ops, now));
    if (ops.size() >= LISTED) {
      b.append("<p class=\"muted\">The latest ").append(LISTED).append(" are shown.</p>");
    }
    return Layout.page("Bulk operations", Layout.Section.OPERATIONS, viewer, b.toString());
  }

  /** The list's table, refreshed live while one of them runs: what a live refresh is sent. */
  static String liveList(List<OperationDocument> ops, Instant now) {
    boolean anyRunning = ops.stream().anyMatch(op -> OperationDocument.RUNNING.equals(op.state()));
    StringBuilder b = new StringBuilder("<div id=\"live\"").append(anyRunning ? " data-live=\"3000\"" : "")
        .append("><table id=\"operations\"><thead><tr><th>Operation</th><th>State</th>")
        .append("<th>Progress</th><th>Created</th></tr></thead><tbody>");
    for (OperationDocument op : ops) {
      long acted = op.done() + op.failed();
      b.append("<tr data-operation=\"").append(esc(op.id())).append("\"><td data-label=\"Operation\"><a href=\"")
          .append("operations/").append(esc(url(op.id()))).append("\">").append(esc(verb(op.action()))).append(' ')
          .append(esc(subject(op.filter()))).append("</a></td><td data-label=\"State\">").append(Html.badge(op.state()))
          .append("</td><td data-label=\"Progress\">").append(number(acted)).append(" of ").append(number(op.matched()))
          .append(op.failed() > 0 ? ", <span class=\"status-failed\">" + number(op.failed()) + " failed</span>" : "")
          .append("</td><td data-label=\"Created\">").append(Html.time(op.createdAt()))
          .append(op.createdBy() == null ? "" : " by <span class=\"mono\">" + esc(op.createdBy()) + "</span>");
      if (op.finishedAt() == null && op.createdAt() != null) {
        b.append(" <span class=\"muted\">running for ").append(Html.duration(Duration.between(op.createdAt(), now)))
            .append("</span>");
      }
      b.append("</td></tr>");
    }
    return b.append("</tbody></table></div>").toString();
  }

  // --- progress --------------------------------------------------------------------------------------------------

  /** {@code /ui/operations/{id}}: an operation's progress, refreshed while it runs. */
  static String page(OperationDocument op, Viewer viewer, String notice, Instant now) {
    StringBuilder b = new StringBuilder();
    b.append("<p class=\"muted\"><a href=\"./\">Workflows</a> / <a href=\"operations\">bulk operations</a>")
        .append("</p><h1>").append(esc(verb(op.action()))).append(' ').append(esc(subject(op.filter())))
        .append(" <span class=\"muted mono\">").append(esc(op.id())).append("</span></h1>")
        .append(Layout.notice(notice, false)).append(live(op, now));
    return Layout.page("Bulk operation " + op.id(), Layout.Section.OPERATIONS, viewer, b.toString());
  }

  static String live(OperationDocument op, Instant now) {
    boolean running = OperationDocument.RUNNING.equals(op.state());
    long acted = op.done() + op.failed();
    long percent = op.matched() == 0 ? 100 : Math.min(100, acted * 100 / op.matched());
    StringBuilder b = new StringBuilder("<div id=\"live\"").append(running ? " data-live=\"1500\"" : "")
        .append(" data-state=\"").append(esc(op.state())).append("\"><div class=\"card\"><dl class=\"facts\">")
        .append("<dt>State</dt><dd id=\"operation-state\">").append(Html.badge(op.state()))
        .append(running ? " <span class=\"muted\">refreshing live</span>" : "").append("</dd>")
        .append("<dt>Action</dt><dd id=\"operation-action\">").append(esc(verb(op.action()))).append("</dd>")
        .append("<dt>Filter</dt><dd id=\"operation-filter\">").append(esc(filterText(op.filter()))).append("</dd>")
        .append("<dt>Progress</dt><dd><progress id=\"operation-progress\" max=\"").append(Math.max(1, op.matched()))
        .append("\" value=\"").append(op.matched() == 0 ? 1 : acted).append("\">").append(percent)
        .append(" %</progress> <span id=\"operation-counts\"><b id=\"operation-acted\">").append(number(acted))
        .append("</b> of <b id=\"operation-matched\">").append(number(op.matched())).append("</b> (")
        .append(percent).append(" %): <span id=\"operation-done\" class=\"status-succeeded\">")
        .append(number(op.done())).append(" done</span>, <span id=\"operation-failed\"")
        .append(op.failed() > 0 ? " class=\"status-failed\"" : "").append('>').append(number(op.failed()))
        .append(" failed</span></span></dd>");
    if (op.lastFailure() != null) {
      b.append("<dt>Last failure</dt><dd id=\"last-failure\" class=\"status-failed\">").append(esc(op.lastFailure()))
          .append("</dd>");
    }
    b.append("<dt>Created</dt><dd>").append(Html.time(op.createdAt())).append(op.createdBy() == null ? ""
        : " by <span class=\"mono\" id=\"operation-created-by\">" + esc(op.createdBy()) + "</span>").append("</dd>");
    if (op.finishedAt() != null) {
      b.append("<dt>Finished</dt><dd id=\"operation-finished\">").append(Html.time(op.finishedAt()));
      if (op.createdAt() != null) {
        b.append(" (took ").append(Html.duration(Duration.between(op.createdAt(), op.finishedAt()))).append(')');
      }
      b.append("</dd>");
    } else if (op.createdAt() != null) {
      b.append("<dt>Running for</dt><dd>").append(Html.duration(Duration.between(op.createdAt(), now)))
          .append("</dd>");
    }
    b.append("</dl></div>");
    String ns = op.filter().get("namespace");
    String wf = op.filter().get("workflow");
    if (ns != null && wf != null) {
      b.append("<p><a id=\"operation-instances\" href=\"workflows/").append(url(ns)).append('/').append(url(wf))
          .append("\">The instances of ").append(esc(ns + "/" + wf)).append("</a></p>");
    }
    return b.append("</div>").toString();
  }

  // --- words ---------------------------------------------------------------------------------------------------

  /** "of shop/order-fulfilment (status FAILED, error code PROVIDER_DOWN)", "in namespace shop", ... */
  static String subject(Map<String, String> filter) {
    String ns = filter.get("namespace");
    String wf = filter.get("workflow");
    String where = ns != null && wf != null ? "of " + ns + "/" + wf
        : wf != null ? "of " + wf + " in every namespace"
        : ns != null ? "in namespace " + ns : "in every namespace";
    List<String> rest = conditions(filter);
    return rest.isEmpty() ? where : where + " (" + String.join(", ", rest) + ")";
  }

  /** Every field of a filter in words: "namespace shop, workflow order, status FAILED". */
  static String filterText(Map<String, String> filter) {
    List<String> all = new ArrayList<>();
    if (filter.get("namespace") != null) {
      all.add("namespace " + filter.get("namespace"));
    }
    if (filter.get("workflow") != null) {
      all.add("workflow " + filter.get("workflow"));
    }
    all.addAll(conditions(filter));
    return String.join(", ", all);
  }

  private static List<String> conditions(Map<String, String> filter) {
    List<String> said = new ArrayList<>();
    FILTERS.forEach((name, label) -> {
      String v = filter.get(name);
      if (v != null && !name.equals("namespace") && !name.equals("workflow")) {
        said.add(label.toLowerCase(Locale.ROOT) + " " + (name.equals("businessKeyPrefix") ? "\"" + v + "\"" : v));
      }
    });
    return said;
  }

  private static String verb(String action) {
    return switch (action) {
      case "cancel" -> "Cancel";
      case "signal" -> "Signal";
      default -> "Retry";
    };
  }

  private static String count(long n) {
    return number(n) + (n == 1 ? " instance" : " instances");
  }

  private static String number(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  private static Map<String, String> actions() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("retry", "Retry (send the failed step again)");
    m.put("cancel", "Cancel");
    m.put("cancel-compensate", "Cancel, compensating completed steps first");
    m.put("signal", "Send a signal");
    return java.util.Collections.unmodifiableMap(m);
  }

  private static Map<String, String> filters() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("namespace", "Namespace");
    m.put("workflow", "Workflow");
    m.put("status", "Status");
    m.put("businessKeyPrefix", "Business key prefix");
    m.put("step", "Step");
    m.put("errorCode", "Error code");
    m.put("createdAfter", "Created after");
    m.put("createdBefore", "Created before");
    return java.util.Collections.unmodifiableMap(m);
  }
}
