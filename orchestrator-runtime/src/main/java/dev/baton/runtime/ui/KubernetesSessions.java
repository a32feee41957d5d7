package dev.baton.runtime.ui;

import dev.baton.runtime.http.ApiAuth;
import dev.baton.runtime.http.ApiAuth.Access;
import dev.baton.runtime.http.auth.AccessGate;
import dev.baton.runtime.http.auth.AccessRefused;
import dev.baton.runtime.http.auth.Caller;
import java.util.Optional;

/**
 * Kubernetes mode's sign-in: a Kubernetes token pasted into the form ({@code kubectl create token …}, or an OIDC
 * token the cluster accepts), checked with a TokenReview, and kept as the session cookie itself ({@code HttpOnly},
 * {@code SameSite=Strict}). Every request checks it again through the gate's short caches, so a session works on
 * any replica without a secret they share, and ends when the token expires or is revoked — within seconds, not at
 * the cookie's end. Signing out clears the cookie. What the user may see and do is RBAC's, asked per page.
 */
final class KubernetesSessions implements Sessions {

  /** What a cookie's value may hold (RFC 6265's cookie-octet): what a JWT is made of, and more. */
  private static final java.util.regex.Pattern COOKIE_SAFE =
      java.util.regex.Pattern.compile("[\\x21\\x23-\\x2B\\x2D-\\x3A\\x3C-\\x5B\\x5D-\\x7E]+");
  /** Browsers keep cookies of about 4 KiB; a token longer than that could not be kept. */
  static final int MAX_TOKEN = 3_800;

  private final AccessGate gate;

  KubernetesSessions(AccessGate gate) {
    this.gate = gate;
  }

  @Override
  public boolean required() {
    return true;
  }

  @Override
  public Optional<Who> who(String sessionCookie, String authorizationHeader) {
    String token = authorizationHeader != null ? ApiAuth.bearer(authorizationHeader) : sessionCookie;
    if (token == null || token.isBlank()) {
      return Optional.empty();
    }
    return caller(token).map(c -> new Who(Access.FULL, c));
  }

  @Override
  public Optional<String> signIn(String token) {
    if (token == null) {
      return Optional.empty();
    }
    String t = token.trim();
    if (t.isEmpty() || t.length() > MAX_TOKEN || !COOKIE_SAFE.matcher(t).matches()) {
      return Optional.empty();
    }
    return caller(t).map(c -> t);
  }

  private Optional<Caller> caller(String token) {
    try {
      return Optional.of(gate.authenticate(token));
    } catch (AccessRefused e) {
      return Optional.empty();
    }
  }

  @Override
  public String prompt() {
    return "This runtime takes Kubernetes tokens: paste one from 'kubectl create token <serviceaccount> -n"
        + " <namespace>', or an OIDC token your cluster accepts. What you may see and do is your RBAC's.";
  }

  @Override
  public String tokenLabel() {
    return "Kubernetes token";
  }
}
