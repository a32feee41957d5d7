package dev.baton.runtime.ui;

import java.util.regex.Pattern;

/**
 * Where the UI's pages are, as the browser sees them. The UI never names its own absolute path: behind a proxy that
 * serves it under a prefix (an ingress path, {@code kubectl proxy}'s service proxy) the browser's {@code /ui/} is
 * {@code /some/prefix/ui/}, which the runtime is not told. So every page carries {@code <base href>} set to the way
 * back from itself to the UI's root, links are relative to that root, and redirects are relative to the request.
 * Only a cookie's Path must be absolute: a proxy that strips a prefix says which in {@code X-Forwarded-Prefix}
 * (Traefik does by itself, ingress-nginx with its {@code x-forwarded-prefix} annotation, a Gateway API route with a
 * header filter; the chart sets it).
 */
final class UiPaths {

  /** The UI's root as the runtime serves it. */
  static final String ROOT = "/ui/";

  private UiPaths() {}

  /**
   * The relative way from the page at {@code requestPath} (the runtime's path) to the UI's root: {@code ./} from
   * {@code /ui/} or {@code /ui/login}, {@code ../} from {@code /ui/instances/x}, {@code ui/} from {@code /ui}.
   */
  static String root(String requestPath) {
    if (requestPath == null || !requestPath.startsWith(ROOT)) {
      return "ui/";
    }
    int depth = 0;
    for (int i = ROOT.length(); i < requestPath.length(); i++) {
      if (requestPath.charAt(i) == '/') {
        depth++;
      }
    }
    return depth == 0 ? "./" : "../".repeat(depth);
  }

  /** A redirect from the page at {@code requestPath} to {@code target}, a page named relative to the UI's root. */
  static String from(String requestPath, String target) {
    return root(requestPath) + target;
  }

  /** The characters a prefix may have: a path's, without what would end or split a Set-Cookie attribute. */
  private static final Pattern PREFIX = Pattern.compile("(/[A-Za-z0-9._~%!$&'()*+=:@-]+)+");

  /**
   * The Path of the UI's cookies: {@code /ui} under the prefix a proxy says it strips ({@code X-Forwarded-Prefix},
   * without a trailing slash), or {@code /ui} when it says none or something that is not a path.
   */
  static String cookiePath(String forwardedPrefix) {
    if (forwardedPrefix == null) {
      return "/ui";
    }
    String prefix = forwardedPrefix.trim();
    prefix = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
    return PREFIX.matcher(prefix).matches() ? prefix + "/ui" : "/ui";
  }

  /** A page of the UI named by its runtime path ({@code /ui/instances/x}), relative to the UI's root. */
  static String relative(String uiPath) {
    return uiPath.startsWith(ROOT) ? uiPath.substring(ROOT.length()) : "";
  }
}
