package dev.baton.runtime.http;

import dev.baton.httpapi.ApiOperations;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /api/v1/openapi.json}: the API described in OpenAPI 3.1, as the http-api module ships it. The document
 * is generated from the API's types when that module is built and committed beside them (its tests keep it current),
 * so the runtime serves a file: it carries no schema generator, and every runtime of a version answers the same bytes.
 * Open to anyone who reaches the port, as the probes are: it says what the API takes and answers, never any data,
 * and client generators and API explorers fetch it without a token.
 */
final class OpenApiRoute {

  private static final byte[] DOCUMENT = read();

  private OpenApiRoute() {}

  static void document(Context ctx) {
    ctx.status(200).contentType("application/json").result(DOCUMENT);
  }

  private static byte[] read() {
    try (InputStream in = ApiOperations.class.getResourceAsStream(ApiOperations.DOCUMENT)) {
      if (in == null) {
        throw new IllegalStateException(ApiOperations.DOCUMENT + " is missing from the http-api jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
