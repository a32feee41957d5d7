package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.step;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.Crs.workflow;
import static dev.baton.operator.it.FakeRuntime.item;
import static dev.baton.operator.it.FakeRuntime.items;
import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md#drift-and-scale: under steady traffic a status is written at most once per status interval — a
 * queue filling up, instance counts changing at every poll of the runtime — and still shows the figures as of its
 * last write.
 */
class QuietStatusIT {

  static final String NS = "busy";
  static final Duration STATUS_INTERVAL = Duration.ofSeconds(15);
  static final Duration WINDOW = Duration.ofSeconds(30);

  @Test
  void steadyTrafficWritesEachStatusAtMostOncePerInterval() throws Exception {
    try (FakeRuntime runtime = FakeRuntime.start();
        OperatorFixture f = OperatorFixture.start("quiet", s -> s.toBuilder().runtimeUrl(runtime.url())
            .countsInterval(Duration.ofMillis(300)).statusInterval(STATUS_INTERVAL).build())) {
      runtime.answer(items(item(NS, "checkout", 0, 0, 0, 0, 0)));
      f.create(workerService(NS, "payment", "pay"));
      f.create(workflow(NS, "checkout", "order", step("charge", "payment", "pay", null)));
      f.awaitReady(WorkerService.class, NS, "payment", true, "Ready");
      f.awaitReady(Workflow.class, NS, "checkout", true, "Ready");

      AtomicInteger serviceWrites = new AtomicInteger();
      AtomicInteger workflowWrites = new AtomicInteger();
      AtomicBoolean traffic = new AtomicBoolean(true);
      Thread publisher = new Thread(() -> publishUntilStopped(f, traffic), "traffic");
      try (Watch a = f.client.resources(WorkerService.class).inNamespace(NS).withName("payment")
              .watch(counting(serviceWrites));
          Watch b = f.client.resources(Workflow.class).inNamespace(NS).withName("checkout")
              .watch(counting(workflowWrites))) {
        publisher.start();
        long end = System.nanoTime() + WINDOW.toNanos();
        long finished = 0;
        while (System.nanoTime() < end) {
          finished++; // instances finishing all the time: the counts differ at every poll
          runtime.answer(items(item(NS, "checkout", 5, finished, 0, finished / 3, 0)));
          Thread.sleep(200);
        }
      } finally {
        traffic.set(false);
        publisher.join();
      }

      long allowed = WINDOW.dividedBy(STATUS_INTERVAL) + 1;
      assertThat(serviceWrites.get()).as("status writes of the WorkerService while its queue fills up")
          .isBetween(1, (int) allowed);
      assertThat(workflowWrites.get()).as("status writes of the Workflow while its counts change every poll")
          .isBetween(1, (int) allowed);
      assertThat(f.get(WorkerService.class, NS, "payment").getStatus().getMessages())
          .as("the depth as of the last write").isPositive();
      assertThat(f.get(Workflow.class, NS, "checkout").getStatus().getSucceeded()).isPositive();
    }
  }

  private static <T> Watcher<T> counting(AtomicInteger events) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, T resource) {
        if (action == Action.MODIFIED) {
          events.incrementAndGet();
        }
      }

      @Override
      public void onClose(WatcherException cause) {}
    };
  }

  private static void publishUntilStopped(OperatorFixture f, AtomicBoolean traffic) {
    try (Connection c = f.vhost.newConnection("traffic"); Channel ch = c.createChannel()) {
      ch.confirmSelect();
      while (traffic.get()) {
        ch.basicPublish("payment.command.topic.ex", "service.payment.pay", true,
            new AMQP.BasicProperties.Builder().deliveryMode(2).contentType("application/json").build(),
            "{}".getBytes(StandardCharsets.UTF_8));
        ch.waitForConfirmsOrDie(5_000);
        Thread.sleep(100);
      }
    } catch (Exception e) {
      throw new IllegalStateException("publishing failed", e);
    }
  }
}
