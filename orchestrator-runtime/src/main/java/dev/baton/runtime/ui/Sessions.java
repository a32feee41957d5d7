package dev.baton.runtime.ui;

import dev.baton.runtime.http.ApiAuth.Access;
import dev.baton.runtime.http.auth.Caller;
import java.util.Optional;

/**
 * How the UI knows who is looking (docs/design.md#web-ui): token mode's signed sessions ({@link TokenSessions}), or
 * Kubernetes mode's token kept in the session cookie ({@link KubernetesSessions}).
 */
interface Sessions {

  /** Who is looking: what token mode lets them do ({@code FULL} in Kubernetes mode, where RBAC decides). */
  record Who(Access access, Caller caller) {}

  /** Whether anyone must sign in. */
  boolean required();

  /**
   * Who a request is, from its session cookie or its {@code Authorization: Bearer} header; empty when it is
   * nobody (signed out, a session that ended, a token no longer valid). Without sign-in, anonymous with full access.
   *
   * @throws dev.baton.runtime.http.auth.ReviewUnavailable when the Kubernetes API cannot be asked
   */
  Optional<Who> who(String sessionCookie, String authorizationHeader);

  /**
   * The session cookie's value for a token typed into the sign-in form, or empty when the token is refused.
   *
   * @throws dev.baton.runtime.http.auth.ReviewUnavailable when the Kubernetes API cannot be asked
   */
  Optional<String> signIn(String token);

  /** What the sign-in form asks for, in a sentence. */
  String prompt();

  /** The form's label of the token field. */
  String tokenLabel();
}
