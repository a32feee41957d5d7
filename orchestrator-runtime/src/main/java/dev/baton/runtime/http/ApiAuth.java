package dev.baton.runtime.http;

import dev.baton.httpapi.ApiPaths;
import dev.baton.runtime.http.auth.Caller;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bearer tokens for the HTTP API ({@code Authorization: Bearer <token>}). With a token configured every request
 * needs it, except {@code GET /healthz} and {@code GET /livez} (probes) and the API's OpenAPI document; a second, read-only token may call GET and HEAD only (403 on
 * anything else). {@code /metrics} is open unless a read-only token is configured, then either token reads it.
 * Without any token the API is open (what {@code baton dev} does by default). Tokens are compared in constant time
 * (as SHA-256 digests, so their length does not leak either) and never logged. The web UI under {@code /ui/} is not
 * checked here: it signs its users in with the same tokens and keeps them in a session cookie ({@code ui.UiAuth}).
 * A request let through carries its {@link Caller} for the audit: {@code static-token}, {@code static-read-token}, or
 * {@code anonymous} on an open API.
 */
public final class ApiAuth {

  private static final Logger LOG = LoggerFactory.getLogger(ApiAuth.class);
  private static final String HEALTH = "/healthz";
  private static final String LIVENESS = "/livez";
  private static final String METRICS = "/metrics";
  private static final String OPENAPI = ApiPaths.OPENAPI;
  private static final String UI = "/ui";
  private static final String CHALLENGE = "Bearer realm=\"baton\"";

  /** What a token may do. */
  public enum Access {
    /** everything */
    FULL,
    /** GET and HEAD only */
    READ
  }

  /** No token: every request is let through. */
  public static final ApiAuth OPEN = new ApiAuth(null, null);

  private final byte[] full;
  private final byte[] readOnly;

  /**
   * @param token the token that may do everything; null: the API is open
   * @param readToken a token that may only read; null: none
   * @throws IllegalArgumentException when a read token is given without a full one, or both are the same
   */
  public ApiAuth(String token, String readToken) {
    if (readToken != null && token == null) {
      throw new IllegalArgumentException("BATON_API_READ_TOKEN is set but BATON_API_TOKEN is not: set both, or the "
          + "read-only token would protect reads while writes stay open");
    }
    if (token != null && token.equals(readToken)) {
      throw new IllegalArgumentException("BATON_API_TOKEN and BATON_API_READ_TOKEN must differ");
    }
    this.full = digest(token);
    this.readOnly = digest(readToken);
  }

  /** Whether the API is open (no token configured). */
  public boolean open() {
    return full == null;
  }

  /** Whether a read-only token is configured. */
  public boolean hasReadToken() {
    return readOnly != null;
  }

  /** What a presented token may do, compared in constant time; empty for a wrong token (or an open API). */
  public Optional<Access> accessOf(String presented) {
    if (full == null || presented == null) {
      return Optional.empty();
    }
    byte[] given = digest(presented);
    boolean isFull = MessageDigest.isEqual(given, full);
    boolean isRead = readOnly != null && MessageDigest.isEqual(given, readOnly);
    return isFull ? Optional.of(Access.FULL) : isRead ? Optional.of(Access.READ) : Optional.empty();
  }

  /**
   * A key for signing the UI's sessions of one access level, derived from that token (never the token itself, nor
   * its digest): a changed token ends every session signed with the old one, and every replica sharing the token
   * accepts the same sessions.
   */
  public byte[] sessionKey(Access access) {
    byte[] token = access == Access.FULL ? full : readOnly;
    if (token == null) {
      throw new IllegalStateException("no token for " + access);
    }
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update("baton-ui-session:".getBytes(StandardCharsets.UTF_8));
      return d.digest(token);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** For the start-up log line: whether tokens are required, never what they are. */
  String describe() {
    if (full == null) {
      return "no token required";
    }
    return "bearer token required" + (readOnly == null ? "" : ", read-only token accepted for GET");
  }

  /** A Javalin before-handler: lets the request through, or throws 401/403 (answered as JSON by the API). */
  void check(Context ctx) {
    if (full == null) {
      ctx.attribute(ApiSecurity.CALLER, Caller.ANONYMOUS);
      return;
    }
    String path = ctx.path();
    if (path.equals(UI) || path.startsWith(UI + "/")) {
      return; // the UI's own sign-in (a form and a cookie, not a header a browser cannot send)
    }
    boolean read = "GET".equals(ctx.method().name()) || "HEAD".equals(ctx.method().name());
    if (read && (HEALTH.equals(path) || LIVENESS.equals(path) || OPENAPI.equals(path)
        || METRICS.equals(path) && readOnly == null)) {
      return;
    }
    String header = ctx.header("Authorization");
    if (header == null || header.isBlank()) {
      ctx.header("WWW-Authenticate", CHALLENGE);
      throw ApiError.unauthorized("this API needs a token: send 'Authorization: Bearer <token>' (baton CLI: --token "
          + "or BATON_RUNTIME_TOKEN)");
    }
    Optional<Access> access = accessOf(bearer(header));
    if (access.isEmpty()) {
      ctx.header("WWW-Authenticate", CHALLENGE + ", error=\"invalid_token\"");
      LOG.debug("Refused {} {} from {}: invalid token", ctx.method(), path, ctx.ip());
      throw ApiError.unauthorized("the token is not valid for this runtime");
    }
    if (access.get() == Access.READ && !read) {
      throw ApiError.forbidden("the read-only token may not " + ctx.method() + " " + path
          + ": use the full token (BATON_API_TOKEN) for changes");
    }
    ctx.attribute(ApiSecurity.CALLER, callerOf(access.get()));
  }

  /** Who a token mode's session or token is, for the audit. */
  public static Caller callerOf(Access access) {
    return access == Access.FULL ? Caller.STATIC_TOKEN : Caller.STATIC_READ_TOKEN;
  }

  /** The token of {@code Bearer <token>} (scheme case-insensitive), or null for another scheme. */
  public static String bearer(String header) {
    String h = header.trim();
    if (h.length() < 7 || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    String token = h.substring(7).trim();
    return token.isEmpty() ? null : token;
  }

  private static byte[] digest(String token) {
    if (token == null) {
      return null;
    }
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
