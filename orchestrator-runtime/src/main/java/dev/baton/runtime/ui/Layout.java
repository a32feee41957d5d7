package dev.baton.runtime.ui;

import static dev.baton.runtime.ui.Html.esc;

/** The frame of every page: head, the bar with the sections, and sign-out when signed in. */
final class Layout {

  enum Section { WORKFLOWS, DEAD_LETTERS, OPERATIONS, NONE }

  private Layout() {}

  static String page(String title, Section here, Viewer viewer, String body) {
    return page(viewer.root(), title, here, viewer, body);
  }

  /**
   * A page whose links are relative to the UI's root, {@code root} being the way there from this page (see
   * {@link UiPaths}); {@code viewer} null before anyone is known.
   */
  static String page(String root, String title, Section here, Viewer viewer, String body) {
    StringBuilder b = new StringBuilder(body.length() + 1500);
    b.append("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<base href=\"").append(esc(root)).append("\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>").append(esc(title)).append(" · Baton</title>")
        .append("<link rel=\"stylesheet\" href=\"assets/baton.css\">")
        .append("<script src=\"assets/baton.js\" defer></script></head><body>")
        .append("<header class=\"top\"><a class=\"brand\" href=\"./\">Baton</a><nav aria-label=\"sections\">");
    link(b, "./", "Workflows", here == Section.WORKFLOWS);
    link(b, "dead-letters", "Dead letters", here == Section.DEAD_LETTERS);
    link(b, "operations", "Bulk operations", here == Section.OPERATIONS);
    b.append("</nav>");
    if (viewer != null && viewer.signedIn()) {
      b.append("<span class=\"who\">").append(whoText(viewer))
          .append("</span><form method=\"post\" action=\"logout\">").append(viewer.csrfField())
          .append("<button class=\"secondary\" type=\"submit\">Sign out</button></form>");
    }
    b.append("</header><main>").append(body).append("</main></body></html>");
    return b.toString();
  }

  /** Token mode says what the session may do; Kubernetes mode names the user (RBAC says what they may do). */
  private static String whoText(Viewer viewer) {
    if (!viewer.named()) {
      return viewer.mayChange() ? "signed in" : "signed in, read-only";
    }
    return "signed in as <span id=\"signed-in-as\" class=\"mono\">" + esc(viewer.caller().user()) + "</span>";
  }

  private static void link(StringBuilder b, String href, String text, boolean here) {
    b.append("<a href=\"").append(href).append('"').append(here ? " class=\"here\" aria-current=\"page\"" : "")
        .append('>').append(text).append("</a>");
  }

  /** A line above the content saying what a button did, or why it did not. */
  static String notice(String text, boolean error) {
    if (text == null || text.isBlank()) {
      return "";
    }
    return "<div class=\"notice" + (error ? " error" : "") + "\" role=\"" + (error ? "alert" : "status") + "\">"
        + esc(text) + "</div>";
  }
}
