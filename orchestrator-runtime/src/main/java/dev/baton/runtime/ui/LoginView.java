package dev.baton.runtime.ui;

import static dev.baton.runtime.ui.Html.esc;

/** The sign-in form: a token once, then a session cookie (see {@link Sessions}). */
final class LoginView {

  private LoginView() {}

  /**
   * @param root the way from the sign-in page to the UI's root
   * @param prompt what the form asks for, in a sentence
   * @param label the token field's label
   */
  static String page(String root, String csrf, String next, String error, String prompt, String label) {
    String body = "<div class=\"card login\"><h1>Sign in to Baton</h1>"
        + Layout.notice(error, true)
        + "<p class=\"muted\">" + esc(prompt) + "</p>"
        + "<form method=\"post\" action=\"login\">"
        + "<input type=\"hidden\" name=\"" + UiAuth.CSRF_FIELD + "\" value=\"" + esc(csrf) + "\">"
        + "<input type=\"hidden\" name=\"next\" value=\"" + esc(next) + "\">"
        + "<label>" + esc(label) + "<input type=\"password\" name=\"token\" id=\"token\""
        + " autocomplete=\"current-password\" required autofocus></label><p><button type=\"submit\" id=\"sign-in\">"
        + "Sign in</button></p></form></div>";
    return Layout.page(root, "Sign in", Layout.Section.NONE, null, body);
  }
}
