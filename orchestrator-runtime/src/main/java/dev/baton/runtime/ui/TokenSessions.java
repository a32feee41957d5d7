package dev.baton.runtime.ui;

import dev.baton.runtime.http.ApiAuth;
import dev.baton.runtime.http.ApiAuth.Access;
import dev.baton.runtime.http.auth.Caller;
import java.util.Optional;

/** Token mode's sign-in: the runtime's own tokens, and sessions signed with keys derived from them ({@link UiAuth}). */
final class TokenSessions implements Sessions {

  private final UiAuth auth;

  TokenSessions(UiAuth auth) {
    this.auth = auth;
  }

  @Override
  public boolean required() {
    return auth.required();
  }

  @Override
  public Optional<Who> who(String sessionCookie, String authorizationHeader) {
    if (!auth.required()) {
      return Optional.of(new Who(Access.FULL, Caller.ANONYMOUS));
    }
    return auth.access(sessionCookie, authorizationHeader).map(a -> new Who(a, ApiAuth.callerOf(a)));
  }

  @Override
  public Optional<String> signIn(String token) {
    return auth.signIn(token).map(auth::session);
  }

  @Override
  public String prompt() {
    return "This runtime's API needs a token (BATON_API_TOKEN, or the read-only one).";
  }

  @Override
  public String tokenLabel() {
    return "API token";
  }
}
