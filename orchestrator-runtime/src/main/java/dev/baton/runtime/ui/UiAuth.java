package dev.baton.runtime.ui;

import dev.baton.runtime.http.ApiAuth.Access;
import dev.baton.runtime.http.ApiAuth;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Who may use the UI, and protection of its buttons.
 *
 * <p><b>Sign-in.</b> With an API token set, the UI asks for it once in a form and keeps a session in an
 * {@code HttpOnly}, {@code SameSite=Strict} cookie: {@code v1.<access>.<expiry>.<HMAC>}, signed with a key derived
 * from that token ({@link ApiAuth#sessionKey}). The token itself never goes into the cookie; any replica that has
 * the token accepts the session; changing the token ends every session. The read-only token signs read-only
 * sessions, whose buttons are refused. A request may also carry {@code Authorization: Bearer} as the API does.
 *
 * <p><b>CSRF.</b> Every form carries the value of the {@code baton-csrf} cookie (random, per browser) and a POST is
 * accepted only when the two match, besides the {@code Origin} (when sent) being this host: another site can
 * neither read the cookie nor make the browser send it ({@code SameSite=Strict}). This holds with the API open too,
 * where a forged form would otherwise cancel instances from any page the user visits.
 */
final class UiAuth {

  static final String SESSION_COOKIE = "baton-session";
  static final String CSRF_COOKIE = "baton-csrf";
  static final String CSRF_FIELD = "csrf";
  static final Duration SESSION_LENGTH = Duration.ofHours(12);
  private static final String VERSION = "v1";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ApiAuth auth;
  private final Clock clock;

  UiAuth(ApiAuth auth, Clock clock) {
    this.auth = auth;
    this.clock = clock;
  }

  /** Whether anyone must sign in. */
  boolean required() {
    return !auth.open();
  }

  /** What the token typed in the form may do; empty when it is wrong. */
  Optional<Access> signIn(String token) {
    return token == null || token.isBlank() ? Optional.empty() : auth.accessOf(token.trim());
  }

  /** What a request may do, from its session cookie or bearer header; FULL when no token is required. */
  Optional<Access> access(String sessionCookie, String authorizationHeader) {
    if (!required()) {
      return Optional.of(Access.FULL);
    }
    if (authorizationHeader != null) {
      Optional<Access> bearer = auth.accessOf(ApiAuth.bearer(authorizationHeader));
      if (bearer.isPresent()) {
        return bearer;
      }
    }
    return verify(sessionCookie);
  }

  /** A new session's cookie value. */
  String session(Access access) {
    long expiry = clock.instant().plus(SESSION_LENGTH).getEpochSecond();
    String body = VERSION + "." + access.name() + "." + expiry;
    return body + "." + mac(access, body);
  }

  Optional<Access> verify(String cookie) {
    if (cookie == null) {
      return Optional.empty();
    }
    String[] parts = cookie.split("\\.");
    if (parts.length != 4 || !VERSION.equals(parts[0])) {
      return Optional.empty();
    }
    Access access;
    long expiry;
    try {
      access = Access.valueOf(parts[1]);
      expiry = Long.parseLong(parts[2]);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (access == Access.READ && !auth.hasReadToken()) {
      return Optional.empty();
    }
    String body = parts[0] + "." + parts[1] + "." + parts[2];
    boolean signed = MessageDigest.isEqual(mac(access, body).getBytes(StandardCharsets.US_ASCII),
        parts[3].getBytes(StandardCharsets.US_ASCII));
    if (!signed || clock.instant().getEpochSecond() >= expiry) {
      return Optional.empty();
    }
    return Optional.of(access);
  }

  /** A fresh value for the CSRF cookie. */
  static String newCsrfToken() {
    byte[] b = new byte[24];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /**
   * Whether a POST came from one of our own pages: the form's token equals the cookie's, and the {@code Origin},
   * when the browser sends one, is this host.
   */
  static boolean sameOrigin(String cookieToken, String formToken, String origin, String host) {
    if (cookieToken == null || formToken == null || cookieToken.length() < 16) {
      return false;
    }
    if (!MessageDigest.isEqual(cookieToken.getBytes(StandardCharsets.US_ASCII),
        formToken.getBytes(StandardCharsets.US_ASCII))) {
      return false;
    }
    if (origin == null || origin.isBlank()) {
      return true;
    }
    String bare = origin.replaceFirst("^https?://", "");
    return host != null && bare.equalsIgnoreCase(host);
  }

  private String mac(Access access, String body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(auth.sessionKey(access), "HmacSHA256"));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException(e);
    }
  }
}
