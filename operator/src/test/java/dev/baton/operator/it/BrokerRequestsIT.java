package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.deployment;
import static dev.baton.operator.it.Crs.retryPolicy;
import static dev.baton.operator.it.Crs.step;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.Crs.workflow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md#drift-and-scale: the operator lists the broker once per interval for all its resources together,
 * never once per resource and pass, so its requests to the management API while nothing changes do not grow with the
 * number of resources; and a Deployment's status changing (replicas becoming available) sends no request at all.
 */
class BrokerRequestsIT {

  static final String NS = "scale";
  static final int SERVICES = 12;
  static final int WORKFLOWS = 6;

  @Test
  void anIdleResyncListsTheBrokerOnceForAllResourcesNotOncePerResource() throws Exception {
    AtomicReference<CountingBroker> broker = new AtomicReference<>();
    try (OperatorFixture f = OperatorFixture.start("requests", s -> s, null,
        b -> {
          broker.set(new CountingBroker(b));
          return broker.get();
        })) {
      f.create(retryPolicy(NS, "standard", 3, "1s", "5s"));
      for (int i = 0; i < SERVICES; i++) {
        f.create(workerService(NS, "svc-" + i, "do:standard", "undo"));
      }
      for (int i = 0; i < WORKFLOWS; i++) {
        f.create(workflow(NS, "wf-" + i, "e" + i, step("a", "svc-" + (2 * i), "do", "undo"),
            step("b", "svc-" + (2 * i + 1), "do", null)));
      }
      for (int i = 0; i < SERVICES; i++) {
        f.awaitReady(WorkerService.class, NS, "svc-" + i, true, "Ready");
      }
      for (int i = 0; i < WORKFLOWS; i++) {
        f.awaitReady(Workflow.class, NS, "wf-" + i, true, "Ready");
      }
      // The passes of the last changes are over once the shared listing has been taken again after them.
      long readyAt = f.operator.brokerListings();
      await().atMost(OperatorFixture.RESYNC.multipliedBy(3)).until(() -> f.operator.brokerListings() > readyAt);

      broker.get().requests.set(0);
      long listingsBefore = f.operator.brokerListings();
      Duration window = OperatorFixture.RESYNC.multipliedBy(3);
      Thread.sleep(window.toMillis()); // the measurement window itself: requests are counted over it
      int requests = broker.get().requests.get();
      long listings = f.operator.brokerListings() - listingsBefore;

      // Every resource was reconciled about three times in the window (a 2 s resync): the old operator listed the
      // queues, bindings and exchanges and read the user and permissions on each pass, 12 * 5 + 6 * 3 = 78 requests
      // per resync. Now: five requests per listing, one listing per half resync for all of them.
      long maxListings = window.dividedBy(f.settings.snapshotMaxAge()) + 1;
      assertThat(listings).as("listings in %s", window).isBetween(1L, maxListings);
      assertThat(requests).as("requests to the management API in %s with nothing changing", window)
          .isLessThanOrEqualTo((int) (5 * maxListings))
          .as("fewer than one request per resource and resync")
          .isLessThan((SERVICES + WORKFLOWS) * (int) window.dividedBy(OperatorFixture.RESYNC));
    }
  }

  @Test
  void aDeploymentStatusChangeSendsNoRequestToTheBroker() {
    AtomicReference<CountingBroker> broker = new AtomicReference<>();
    // A long resync: the only reconciliations after the first are those the Deployment's status causes.
    try (OperatorFixture f = OperatorFixture.start("deployments", s -> s.withResync(Duration.ofSeconds(60)), null,
        b -> {
          broker.set(new CountingBroker(b));
          return broker.get();
        })) {
      f.create(workerService(NS, "payment", spec -> spec.setDeployment(deployment("example/payment:1", 2)), "pay"));
      f.awaitReady(WorkerService.class, NS, "payment", false, "ReplicasUnavailable");
      broker.get().requests.set(0);

      f.client.apps().deployments().inNamespace(NS).withName("payment").editStatus(d -> {
        d.setStatus(new DeploymentStatusBuilder().withReplicas(2).withAvailableReplicas(1).build());
        return d;
      });
      await().atMost(OperatorFixture.WITHIN).until(() -> f.condition(WorkerService.class, NS, "payment", "Ready")
          .map(c -> c.getMessage().contains("1/2")).orElse(false));
      f.client.apps().deployments().inNamespace(NS).withName("payment").editStatus(d -> {
        d.setStatus(new DeploymentStatusBuilder().withReplicas(2).withAvailableReplicas(2).build());
        return d;
      });
      f.awaitReady(WorkerService.class, NS, "payment", true, "Ready");

      assertThat(broker.get().requests.get()).as("requests to the management API for two Deployment status changes")
          .isZero();
    }
  }
}
