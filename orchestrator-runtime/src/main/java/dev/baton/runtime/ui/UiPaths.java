package dev.baton.runtime.ui;

import java.util.regex.Pattern;

/**
 * Where the UI's pages are, as the browser sees them. The UI never names its own absolute path: behind a proxy that
 * serves it under a prefix (an ingress path, {@code kubectl proxy}'s service proxy) the browser's {@code /ui/} is
 * {@code /some/prefix/ui/}, which the runtime is not told. So every page carries {@code <base href>} set to the way
 * back from itself to the UI's root, links are relative to that root, and redirects are relative to the request.
 * Only a cookie's Path must be absolute: a proxy that strips a prefix says which in {@code X-Forwarded-Prefix}
 * (Traefik does by itself, ingress-nginx with its {@code x-forwarded-prefix} annotation, a Gateway API route with a
 * header filter; the chart sets it). A proxy that says nothing ({@code kubectl proxy}'s service proxy, under
 * {@code /api/v1/namespaces/NS/services/NAME:PORT/proxy/}) gets cookies without a Path, which browsers then scope to
 * the directory of the URL they asked (RFC 6265 §5.1.4, the default-path): the UI's root, as the browser sees it,
 * for a page right under it. So, without a prefix, cookies are set from such pages only ({@link #cookiesSettable}):
 * one set from {@code /ui/instances/x} would be scoped to {@code .../ui/instances} and missed everywhere else.
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
   * without a trailing slash, or nothing for an empty one), or null, for no Path attribute, when it says none or
   * something that is not a path: the browser's default-path then ({@link UiPaths}).
   */
  static String cookiePath(String forwardedPrefix) {
    if (forwardedPrefix == null) {
      return null;
    }
    String prefix = forwardedPrefix.trim();
    prefix = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
    return prefix.isEmpty() ? ROOT.substring(0, ROOT.length() - 1)
        : PREFIX.matcher(prefix).matches() ? prefix + "/ui" : null;
  }

  /**
   * Whether a response to {@code requestPath} may set the UI's cookies: always where the Path is known
   * ({@link #cookiePath}), else only from a page right under the UI's root, whose directory the browser takes for
   * the cookie's path, or from {@code /ui} itself, whose directory holds the root.
   */
  static boolean cookiesSettable(String requestPath, String forwardedPrefix) {
    return cookiePath(forwardedPrefix) != null || "./".equals(root(requestPath)) || "/ui".equals(requestPath);
  }

  /** A page of the UI named by its runtime path ({@code /ui/instances/x}), relative to the UI's root. */
  static String relative(String uiPath) {
    return uiPath.startsWith(ROOT) ? uiPath.substring(ROOT.length()) : "";
  }
}
