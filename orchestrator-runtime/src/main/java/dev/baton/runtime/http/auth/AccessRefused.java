package dev.baton.runtime.http.auth;

/**
 * A request the {@link AccessGate} turned away: 401 (no token, or one that is not valid), 403 (RBAC does not allow
 * it), or 400/404 (what it names does not exist, so nothing can be asked about it). The API answers it as JSON, the
 * web UI as a page or with its sign-in form.
 *
 * @see #request() the question RBAC said no to (403 only)
 */
public final class AccessRefused extends RuntimeException {

  /** The {@code WWW-Authenticate} challenge of every 401. */
  public static final String CHALLENGE = "Bearer realm=\"baton\"";

  private final int status;
  private final String code;
  private final transient AccessRequest request;
  private final boolean invalidToken;

  private AccessRefused(int status, String code, String message, AccessRequest request, boolean invalidToken) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
    this.request = request;
    this.invalidToken = invalidToken;
  }

  static AccessRefused noToken() {
    return new AccessRefused(401, "Unauthorized", "this API needs a Kubernetes token: send 'Authorization: Bearer"
        + " <token>' (a ServiceAccount token from 'kubectl create token', or an OIDC token the cluster accepts)",
        null, false);
  }

  static AccessRefused invalidToken() {
    return new AccessRefused(401, "Unauthorized", "the token was not accepted by the Kubernetes API (TokenReview):"
        + " it may have expired or been revoked; get a new one", null, true);
  }

  static AccessRefused forbidden(String user, AccessRequest request) {
    return new AccessRefused(403, "Forbidden", request.refusal(user), request, false);
  }

  static AccessRefused notFound(String message) {
    return new AccessRefused(404, "NotFound", message, null, false);
  }

  static AccessRefused badRequest(String message) {
    return new AccessRefused(400, "BadRequest", message, null, false);
  }

  /** Refused for a route that has no rule: nobody may call it until it says what it needs. */
  static AccessRefused unlisted(String route) {
    return new AccessRefused(403, "Forbidden", "no access rule for " + route + ": refused", null, false);
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  /** What RBAC was asked and said no to; null unless 403. */
  public AccessRequest request() {
    return request;
  }

  /** The {@code WWW-Authenticate} value of a 401, null otherwise. */
  public String challenge() {
    if (status != 401) {
      return null;
    }
    return invalidToken ? CHALLENGE + ", error=\"invalid_token\"" : CHALLENGE;
  }
}
