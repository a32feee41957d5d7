package dev.baton.runtime.http;

import io.javalin.http.Context;

/**
 * Where a request came from, for the audit: the peer's address, or — only when the runtime is told it stands behind
 * a proxy it trusts ({@code BATON_HTTP_TRUSTED_PROXY}) — the first hop of {@code X-Forwarded-For}, which that proxy
 * wrote. Without a trusted proxy the header is anyone's to forge, so it is not read.
 */
final class ClientAddress {

  /** Longer than any IPv6 address with a zone: what is longer is not an address. */
  private static final int MAX = 64;

  private ClientAddress() {}

  static String of(Context ctx, boolean trustedProxy) {
    String peer = ctx.req().getRemoteAddr();
    return trustedProxy ? firstHop(ctx.header("X-Forwarded-For"), peer) : peer;
  }

  /** The first address of an {@code X-Forwarded-For} value, or the peer's when there is none that looks like one. */
  static String firstHop(String forwardedFor, String peer) {
    if (forwardedFor == null) {
      return peer;
    }
    int comma = forwardedFor.indexOf(',');
    String first = (comma < 0 ? forwardedFor : forwardedFor.substring(0, comma)).trim();
    return looksLikeAddress(first) ? first : peer;
  }

  /** IPv4, IPv6 (bracketed, with a zone or a port): digits, hex, dots, colons, brackets, '%'. Nothing to inject. */
  private static boolean looksLikeAddress(String s) {
    if (s.isEmpty() || s.length() > MAX) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok = Character.isLetterOrDigit(c) && c < 128 || c == '.' || c == ':' || c == '[' || c == ']'
          || c == '%' || c == '-' || c == '_';
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
