package dev.baton.bench;

import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts instances over HTTP, the same requests whichever server answers them (Baton's API or the ceiling's start
 * endpoint): a new business key and the instance input each, a keep-alive connection per load-generator thread
 * ({@link KeepAliveClient}). Its {@link ClosedLoop} and {@link OpenLoop} are the sustained and fixed-rate loads of
 * both.
 */
final class LoadGenerator implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LoadGenerator.class);

  private final URI server;
  private final String startPath;
  private final BenchConfig config;
  /** A keep-alive connection per load-generator thread, each used by its thread only. */
  private final ThreadLocal<KeepAliveClient> http = new ThreadLocal<>();
  private final List<KeepAliveClient> clients = new CopyOnWriteArrayList<>();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong keys = new AtomicLong();
  private final String keyPrefix = "b-" + Long.toHexString(System.nanoTime()) + "-";

  /** @param start the start endpoint: {@code http://host:port/path} */
  LoadGenerator(URI start, BenchConfig config) {
    this.server = start;
    this.startPath = start.getRawPath();
    this.config = config;
  }

  /** One start; true when the server answered 201 (created). */
  boolean start() {
    return post(startPath, startRequest(), 201) != null;
  }

  /** One start's JSON: a business key new to this generator, and the instance input. */
  String startRequest() {
    long n = keys.incrementAndGet();
    return "{\"businessKey\":\"" + keyPrefix + n + "\",\"input\":" + config.input(n) + "}";
  }

  /**
   * POSTs {@code json} on this thread's connection; the answer's body when its status is {@code expected}, else null
   * (counted as a failure, the first few logged).
   */
  String post(String path, String json, int expected) {
    try {
      KeepAliveClient.Response r = client().post(path, json);
      if (r.status() == expected) {
        return r.body();
      }
      if (failures.incrementAndGet() <= 3) {
        LOG.warn("{} answered {}: {}", path, r.status(), r.body().substring(0, Math.min(300, r.body().length())));
      }
    } catch (Exception e) {
      if (failures.incrementAndGet() <= 3) {
        LOG.warn("{} failed: {}", path, e.toString());
      }
    }
    return null;
  }

  /** Requests that failed or were refused. */
  long failures() {
    return failures.get();
  }

  /** A closed loop of {@code inFlight} instances on {@link BenchConfig#httpClients} threads; runs until closed. */
  ClosedLoop closedLoop(int inFlight, DoubleSupplier finished) {
    return new ClosedLoop(inFlight, finished, config.httpClients(), this::start);
  }

  /**
   * {@code rate} starts per second, on {@link BenchConfig#httpClients} threads (16 at least: at a fixed rate a slow
   * answer must not hold up the next start), for {@code warmupSeconds} then {@code seconds}, measured.
   */
  OpenLoop openLoop(double rate, int warmupSeconds, int seconds, DoubleSupplier stepsApplied)
      throws InterruptedException {
    return OpenLoop.run(rate, warmupSeconds, seconds, Math.max(config.httpClients(), 16), stepsApplied, this::start);
  }

  private KeepAliveClient client() {
    KeepAliveClient c = http.get();
    if (c == null) {
      c = new KeepAliveClient(server, 60_000);
      http.set(c);
      clients.add(c);
    }
    return c;
  }

  /** Closes the connections. */
  @Override
  public void close() {
    clients.forEach(KeepAliveClient::close);
    clients.clear();
  }
}
