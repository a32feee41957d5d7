package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.workerService;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.SubscriptionSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.model.Tenancy;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With tenancy rules (BATON_TENANCY), a namespace claims only the service names it is allowed, so it can neither
 * take nor block another team's name; and it subscribes to another namespace's service only when the provider lists
 * it in its annotation.
 */
class TenancyIT {

  static OperatorFixture f;
  static BrokerState broker;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("tenancy", s -> s.toBuilder().tenancy(Tenancy.parse("payments=payment;shop=cart")).build());
    broker = new BrokerState(f.management, f.vhost.name());
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  void a_namespace_may_not_claim_another_teams_name_nor_block_it() {
    WorkerService squatter = workerService("shop", "payment", "pay");
    f.create(squatter);
    assertThat(f.awaitReady(WorkerService.class, "shop", "payment", false, "Forbidden").getMessage())
        .contains("namespace 'shop' may not claim service 'payment'");
    assertThat(broker.queues()).doesNotContainKey("q.payment.pay");

    // The team the name is for gets it, although the squatter is older: a forbidden claim holds nothing.
    f.create(workerService("payments", "payment", "pay"));
    f.awaitReady(WorkerService.class, "payments", "payment", true, "Ready");
    assertThat(broker.queues()).containsKey("q.payment.pay");
  }

  @Test
  void another_namespace_subscribes_only_when_the_provider_lists_it() {
    f.create(workerService("payments", "refunds", spec -> spec.setService("payment"), "pay"));
    WorkerService cart = workerService("shop", "cart", spec -> {
      SubscriptionSpec s = new SubscriptionSpec();
      s.setName("payment_failed");
      s.setService("payment");
      s.setPattern("*.pay.failed");
      spec.getSubscriptions().add(s);
    }, "checkout");
    f.create(cart);
    // whichever of the two payments WorkerServices holds the name, it is in namespace payments
    assertThat(f.awaitReady(WorkerService.class, "shop", "cart", false, "Forbidden").getMessage())
        .contains("subscription 'payment_failed'", "provided in namespace 'payments'", Tenancy.SUBSCRIBERS);
    assertThat(broker.queues()).doesNotContainKey("q.cart.payment_failed");

    f.edit(WorkerService.class, "payments", "payment", ws -> {
      ws.getMetadata().setAnnotations(Map.of(Tenancy.SUBSCRIBERS, "shop"));
      return ws;
    });
    f.edit(WorkerService.class, "payments", "refunds", ws -> {
      ws.getMetadata().setAnnotations(Map.of(Tenancy.SUBSCRIBERS, "shop"));
      return ws;
    });
    f.awaitReady(WorkerService.class, "shop", "cart", true, "Ready");
    assertThat(broker.queues()).containsKey("q.cart.payment_failed");
  }
}
