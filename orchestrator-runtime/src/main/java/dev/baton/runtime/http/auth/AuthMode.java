package dev.baton.runtime.http.auth;

import java.util.Locale;

/**
 * How the API and the web UI know who is calling ({@code BATON_AUTH}, docs/design.md#security).
 */
public enum AuthMode {
  /**
   * The runtime's own bearer tokens ({@code BATON_API_TOKEN}, {@code BATON_API_READ_TOKEN}); the API is open when
   * neither is set. For {@code baton dev} and small installs.
   */
  TOKEN,
  /**
   * Kubernetes tokens, checked with a TokenReview, and Kubernetes RBAC, asked with a SubjectAccessReview: who may do
   * what with instances is decided where the rest of the cluster's access is, not in a second user database.
   */
  KUBERNETES;

  /** The value as it is written in {@code BATON_AUTH}. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code token} or {@code kubernetes}, any case, around white space. */
  public static AuthMode parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    for (AuthMode m : values()) {
      if (m.wire().equals(t)) {
        return m;
      }
    }
    throw new IllegalArgumentException("expected 'token' (the runtime's own tokens) or 'kubernetes' (Kubernetes"
        + " tokens and RBAC), got '" + text + "'");
  }
}
