package dev.baton.runtime.ui;

/**
 * Where an instance's trace opens ({@code BATON_TRACE_URL}, a URL with {@code {traceId}} in it): a link on the
 * instance page; without one the trace id is shown as text, to search a trace UI or the logs by.
 */
public record TraceLink(String template) {

  public static final TraceLink NONE = new TraceLink(null);

  String html(String traceId) {
    String id = Html.esc(traceId);
    if (template == null) {
      return id;
    }
    return "<a href=\"" + Html.esc(template.replace("{traceId}", traceId)) + "\" rel=\"noopener\" target=\"_blank\">"
        + id + "</a>";
  }
}
