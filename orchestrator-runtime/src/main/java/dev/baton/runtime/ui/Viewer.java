package dev.baton.runtime.ui;

import dev.baton.runtime.http.ApiAuth.Access;

/**
 * Who is looking at a page: what they may do, the CSRF token their forms carry, and whether they signed in (and so
 * can sign out).
 */
record Viewer(Access access, String csrf, boolean signedIn) {

  boolean mayChange() {
    return access == Access.FULL;
  }

  /** The hidden field every form that changes something carries. */
  String csrfField() {
    return "<input type=\"hidden\" name=\"" + UiAuth.CSRF_FIELD + "\" value=\"" + Html.esc(csrf) + "\">";
  }
}
