package dev.baton.bench;

import io.javalin.Javalin;
import io.javalin.http.Context;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The ceiling's starts over HTTP, through the server stack Baton's API runs on (Javalin on Jetty, its defaults: the
 * request handled on a Jetty thread that waits for the answer), so that the ceiling with starts pays for the same
 * requests as Baton's sustained loop. A {@code POST} waits in a short, bounded queue until a start writer takes it into
 * a group ({@link #takeGroup}), and is answered {@code 201 {"id": …}} once its group has committed, as Baton's group
 * commit answers a start. None of Baton's code: the body is read, not parsed (the ceiling parses no JSON), and no
 * security, idempotency, metrics or tracing stand in front.
 */
final class CeilingStartEndpoint implements AutoCloseable {

  /** As Baton's start queue: a full one makes a request wait this long, then a 503. */
  private static final int CAPACITY = 4096;
  private static final int OFFER_TIMEOUT_SECONDS = 10;

  /** A start waiting for its group's commit: completed with the instance's id, or failed. */
  record Waiting(CompletableFuture<Long> answer) {}

  private final BlockingQueue<Waiting> queue = new ArrayBlockingQueue<>(CAPACITY);
  private final Javalin app;
  private final URI uri;

  /** Listens on a free port of 127.0.0.1 for {@code POST path}. */
  CeilingStartEndpoint(String path) {
    this.app = Javalin.create(config -> {
      config.jetty.host = "127.0.0.1";
      config.jetty.port = 0;
      config.startup.showJavalinBanner = false;
      config.startup.showOldJavalinVersionWarning = false;
      config.routes.post(path, this::start);
    });
    app.start();
    this.uri = URI.create("http://127.0.0.1:" + app.port() + path);
  }

  /** Where to POST a start. */
  URI uri() {
    return uri;
  }

  private void start(Context ctx) throws Exception {
    ctx.bodyAsBytes(); // received whole, as Baton's API does before answering
    Waiting w = new Waiting(new CompletableFuture<>());
    if (!queue.offer(w, OFFER_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      ctx.status(503).contentType("application/json").result("{\"code\":\"ServiceUnavailable\"}");
      return;
    }
    long id;
    try {
      id = w.answer().get(30, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      ctx.status(503).contentType("application/json").result("{\"code\":\"ServiceUnavailable\"}");
      return;
    }
    ctx.status(201).contentType("application/json").result("{\"id\":\"" + id + "\"}");
  }

  /**
   * The next start waiting, and every other one waiting then, up to {@code max}: a group for one transaction. Nothing
   * waits to fill a group.
   */
  List<Waiting> takeGroup(int max) throws InterruptedException {
    List<Waiting> group = new ArrayList<>(max);
    group.add(queue.take());
    queue.drainTo(group, max - 1);
    return group;
  }

  /** Stops serving; the starts still waiting fail. */
  @Override
  public void close() {
    app.stop();
    List<Waiting> left = new ArrayList<>();
    queue.drainTo(left);
    left.forEach(w -> w.answer().completeExceptionally(new IllegalStateException("the ceiling stopped")));
  }
}
