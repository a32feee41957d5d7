package dev.baton.operator.broker;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.baton.contract.topology.PermissionSpec;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Writes to the management API from many reconcile threads at once reach the broker a few at a time: a stub management
 * API counts the requests it is serving at once while 40 threads each create a user and set its permissions.
 */
class ManagementWritesTest {

  private HttpServer server;
  private final AtomicInteger serving = new AtomicInteger();
  private final AtomicInteger mostAtOnce = new AtomicInteger();
  private final AtomicInteger served = new AtomicInteger();
  private final CountDownLatch beyondTheCap = new CountDownLatch(1);

  @BeforeEach
  void startStub() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    server.setExecutor(Executors.newFixedThreadPool(64));
    server.createContext("/api/", exchange -> {
      int now = serving.incrementAndGet();
      mostAtOnce.accumulateAndGet(now, Math::max);
      try {
        exchange.getRequestBody().readAllBytes();
        if (now > HopBrokerClient.MAX_CONCURRENT_WRITES) {
          beyondTheCap.countDown();
        }
        // Each write is held a while (or until one beyond the cap came in, which fails the test anyway), so that
        // writes sent at once overlap here: a missing cap shows as more than the cap at once.
        beyondTheCap.await(50, TimeUnit.MILLISECONDS);
        served.incrementAndGet();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        // Counted out before it is answered: once answered, the client may send its next write at once, and that
        // one must not find this one still counted.
        serving.decrementAndGet();
      }
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    server.start();
  }

  @AfterEach
  void stopStub() {
    server.stop(0);
  }

  @Test
  void fortyReconcileThreadsWritingAtOnceSendAtMostTheCapAtATimeAndAllTheirWritesArrive() throws Exception {
    BrokerClient broker = HopBrokerClient.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/",
        "admin", "not-a-secret", "baton");
    ExecutorService reconcilers = Executors.newFixedThreadPool(40);
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      String user = "svc-" + i;
      done.add(reconcilers.submit(() -> {
        broker.putUser(user, "p", List.of());
        broker.putPermissions(user, new PermissionSpec("^$", ".*", ".*"));
      }));
    }
    for (Future<?> f : done) {
      f.get(30, TimeUnit.SECONDS);
    }
    reconcilers.shutdown();

    assertThat(served).hasValue(80);
    assertThat(mostAtOnce.get()).isEqualTo(HopBrokerClient.MAX_CONCURRENT_WRITES);
  }
}
