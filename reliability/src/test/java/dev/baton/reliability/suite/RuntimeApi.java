package dev.baton.reliability.suite;

import dev.baton.httpapi.ApiPaths;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The runtimes' HTTP API as the scenarios' clients use it: requests to the first runtime with the bearer token (or
 * exactly as given), and the instances' starts, spread over every live runtime and retried until accepted. Keeps the
 * client side of the ledger: which starts the API accepted.
 */
public final class RuntimeApi {

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();
  private final RuntimeHttp http;
  private final Runtimes runtimes;
  private final Set<String> accepted = ConcurrentHashMap.newKeySet();
  /** The start request's body for {@code key}; scenarios may give some instances other inputs. */
  private volatile Function<String, String> startBody =
      key -> "{\"businessKey\":\"" + key + "\",\"input\":{\"amount\":42}}";

  RuntimeApi(RuntimeHttp http, Runtimes runtimes) {
    this.http = http;
    this.runtimes = runtimes;
  }

  /** The URI of {@code path} on the first runtime. */
  public URI url(String path) {
    return RuntimeHttp.uri(runtimes.port(), path);
  }

  public HttpResponse<String> get(String path) {
    return http.send(HttpRequest.newBuilder(url(path)).GET());
  }

  public HttpResponse<String> post(String path, String body) {
    return http.send(HttpRequest.newBuilder(url(path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  /** A request exactly as given: no token added. */
  public HttpResponse<String> raw(HttpRequest.Builder request) {
    return http.raw(request);
  }

  /** The start request's body for a business key, for the starts from now on. */
  public void startBody(Function<String, String> body) {
    startBody = body;
  }

  /** Starts the instance of {@code key}, retrying until the API accepts it or the deadline passes. */
  public boolean startOne(String key, Instant until) {
    return start(Rig.WORKFLOW, key, startBody.apply(key), until) != null;
  }

  /**
   * Starts an instance of {@code workflow} with the start request {@code body}, retrying until the API accepts it or
   * {@code until} passes; the instance's id, or null when it was never accepted.
   */
  public String start(String workflow, String key, String body, Instant until) {
    int attempt = 0;
    while (Instant.now().isBefore(until)) {
      List<Integer> ports = runtimes.livePorts(); // a replica that does not answer: the next attempt asks another
      int port = ports.get(Math.floorMod(key.hashCode() + attempt++, ports.size()));
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(RuntimeHttp.uri(port,
            ApiPaths.instances(Rig.NS, workflow))).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
        if (r.statusCode() / 100 == 2) {
          accepted.add(key);
          return JSON.readTree(r.body()).path("id").asText(null);
        }
      } catch (RuntimeException | java.io.IOException down) {
        // the runtime is down: try again
      }
      Wait.sleep(250);
    }
    return null;
  }

  /**
   * POSTs {@code body} to {@code path}, again while no runtime answers or one answers 5xx (down, its database away),
   * until {@code until}; the last status (-1: none answered).
   */
  public int postUntilAnswered(String path, String body, Instant until) {
    int status = -1;
    int attempt = 0;
    while (Instant.now().isBefore(until)) {
      List<Integer> ports = runtimes.livePorts();
      int port = ports.get(Math.floorMod(path.hashCode() + attempt++, ports.size()));
      try {
        status = http.send(HttpRequest.newBuilder(RuntimeHttp.uri(port, path)).header("Content-Type",
            "application/json").POST(HttpRequest.BodyPublishers.ofString(body))).statusCode();
        if (status < 500) {
          return status;
        }
      } catch (RuntimeException down) {
        // the runtime is down: try again
      }
      Wait.sleep(250);
    }
    return status;
  }

  /**
   * Starts instances {@code key-from .. key-(to-1)} from {@code threads} clients, each retried until the API accepts
   * it (the runtime may be down or its database away meanwhile; the business key makes a repeated start return the
   * same instance). The future completes when every start was accepted or gave up.
   */
  public Future<?> startInstances(int from, int to, int threads, Duration deadline) {
    return startInstances(from, to, threads, deadline, Duration.ZERO);
  }

  /** As {@link #startInstances(int, int, int, Duration)}, the starts spread evenly over {@code spread}. */
  public Future<?> startInstances(int from, int to, int threads, Duration deadline, Duration spread) {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    Instant until = Instant.now().plus(deadline);
    long t0 = System.nanoTime();
    for (int i = from; i < to; i++) {
      String key = "key-" + i;
      long at = t0 + spread.toNanos() * (i - from) / Math.max(1, to - from);
      pool.submit(() -> {
        long wait = at - System.nanoTime();
        if (wait > 0) {
          Wait.sleep(wait / 1_000_000);
        }
        return startOne(key, until);
      });
    }
    pool.shutdown();
    return CompletableFuture.runAsync(() -> {
      try {
        pool.awaitTermination(deadline.toMillis() + 60_000, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }

  /** Counts a start the caller made itself (a probe) among the accepted ones, so the checker holds it to the rules. */
  public void recordAccepted(String key) {
    accepted.add(key);
  }

  /** The business keys whose start the API accepted so far. */
  public Set<String> accepted() {
    return Collections.unmodifiableSet(accepted);
  }
}
