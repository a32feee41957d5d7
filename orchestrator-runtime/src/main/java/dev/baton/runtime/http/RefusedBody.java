package dev.baton.runtime.http;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads and drops the body of a request that is refused for its size, so that the client can read the refusal. Most
 * clients send the whole body before they read the answer; if the server answered and closed the connection while
 * body bytes were still arriving, the kernel would reset it and the client would see "broken pipe" or no answer
 * instead of the 413 (what nginx avoids with its lingering close). Bodies beyond {@link #MAX_DISCARDED} are not
 * read: the connection is closed under such a client, which then sees the reset.
 */
final class RefusedBody {

  /** The most a refused body costs the runtime to read; far above any limit a user would set for starts. */
  static final long MAX_DISCARDED = 64L * 1024 * 1024;

  private RefusedBody() {}

  static void discard(HttpServletRequest request, long declaredLength) {
    if (declaredLength > MAX_DISCARDED) {
      return;
    }
    byte[] sink = new byte[64 * 1024];
    try (InputStream in = request.getInputStream()) {
      long left = declaredLength;
      int n;
      while (left > 0 && (n = in.read(sink, 0, (int) Math.min(sink.length, left))) >= 0) {
        left -= n;
      }
    } catch (IOException e) {
      // The client went away or stalled past the idle timeout: nobody is left to read the answer.
    }
  }
}
