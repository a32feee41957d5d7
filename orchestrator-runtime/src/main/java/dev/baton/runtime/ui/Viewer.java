package dev.baton.runtime.ui;

import dev.baton.runtime.http.ApiAuth.Access;
import dev.baton.runtime.http.auth.Caller;

/**
 * Who is looking at a page: what they may do (in Kubernetes mode always {@code FULL}: RBAC answers each action), who
 * they are, the CSRF token their forms carry, whether they signed in (and so can sign out), and whether they are known
 * by a name of their own (Kubernetes mode) rather than by the token mode's fixed ones, and the way from the page they
 * look at back to the UI's root ({@link UiPaths#root}).
 */
record Viewer(Access access, Caller caller, String csrf, boolean signedIn, boolean named, String root) {

  /** On a page directly under the UI's root. */
  Viewer(Access access, Caller caller, String csrf, boolean signedIn, boolean named) {
    this(access, caller, csrf, signedIn, named, "./");
  }

  boolean mayChange() {
    return access == Access.FULL;
  }

  /** The hidden field every form that changes something carries. */
  String csrfField() {
    return "<input type=\"hidden\" name=\"" + UiAuth.CSRF_FIELD + "\" value=\"" + Html.esc(csrf) + "\">";
  }
}
