package dev.baton.runtime.http;

import dev.baton.api.json.Json;
import dev.baton.httpapi.ErrorBody;
import dev.baton.runtime.retention.RetentionJob;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.RequestKeyStore;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The {@code Idempotency-Key} request header of starts, cancels, retries and signals (docs/design.md#interfaces): the
 * same key again on the same endpoint, within {@link #WINDOW}, answers what the first request answered — its status
 * and body, byte for byte — and changes nothing. So a client may send a request again after an answer it did not get
 * (a timeout, a 503 from a proxy) without doing twice what it asked. The same key with another body is refused (422).
 *
 * <p>The answer is kept once the action has committed, in a transaction of its own: a runtime that dies between the
 * two lets a repeat act again, which each action tolerates (a start finds its business key, a second cancel or retry
 * changes nothing, and a signal is stored with its key, once, in the action's own transaction). Answers of 5xx are not
 * kept: the client should try again.
 */
final class IdempotentRequests {

  static final String HEADER = "Idempotency-Key";
  static final String REPLAYED = "Idempotency-Replayed";
  static final Duration WINDOW = RetentionJob.IDEMPOTENCY_WINDOW;
  static final int MAX_KEY = 255;

  private final Database database;
  private final RequestKeyStore store;

  IdempotentRequests(Database database, RequestKeyStore store) {
    this.database = database;
    this.store = store;
  }

  /** The handler, answering a repeated key from what was kept and keeping the first answer of each key. */
  Handler wrap(Handler handler) {
    return ctx -> {
      String key = ctx.header(HEADER);
      if (key == null) {
        handler.handle(ctx);
        return;
      }
      if (key.isBlank() || key.length() > MAX_KEY) {
        throw ApiError.badRequest(HEADER + " must be 1 to " + MAX_KEY + " characters");
      }
      String scope = ctx.method() + " " + ctx.path();
      String hash = sha256(ctx.bodyAsBytes());
      Optional<RequestKeyStore.Answer> kept = database.inTransaction(c -> store.find(c, scope, key, WINDOW));
      if (kept.isPresent()) {
        if (!kept.get().requestHash().equals(hash)) {
          throw ApiError.unprocessable(HEADER + " '" + key + "' was used for another request on "
              + scope + " within " + WINDOW.toHours() + " hours: use a new key for a new request");
        }
        ctx.header(REPLAYED, "true");
        ctx.status(kept.get().status()).contentType("application/json").result(kept.get().body());
        return;
      }
      RequestKeyStore.Answer answer;
      try {
        handler.handle(ctx);
        answer = new RequestKeyStore.Answer(hash, ctx.statusCode(), resultBytes(ctx));
      } catch (ApiError e) {
        if (e.status() >= 500) {
          throw e;
        }
        answer = new RequestKeyStore.Answer(hash, e.status(), Json.writeBytes(new ErrorBody(e.code(), e.getMessage())));
        keep(scope, key, answer);
        throw e;
      }
      if (answer.status() < 500) {
        keep(scope, key, answer);
      }
    };
  }

  private void keep(String scope, String key, RequestKeyStore.Answer answer) throws java.sql.SQLException {
    database.inTransaction(c -> {
      store.save(c, scope, key, answer, WINDOW);
      return null;
    });
  }

  /** What the handler answered; read and put back, so the client still gets it. */
  private static byte[] resultBytes(Context ctx) {
    InputStream in = ctx.resultInputStream();
    if (in == null) {
      return new byte[0];
    }
    try {
      byte[] bytes = in.readAllBytes();
      ctx.result(bytes);
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha256(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body == null ? new byte[0] : body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
