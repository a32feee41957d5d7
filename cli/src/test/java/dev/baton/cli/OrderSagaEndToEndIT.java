package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.examples.InventoryWorker;
import dev.baton.examples.PaymentWorker;
import dev.baton.examples.ShippingWorker;
import dev.baton.examples.SmsWorker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The order saga of the README quickstart, end to end in dev mode: {@code baton dev} in-process with its example
 * workers, the real RabbitMQ and PostgreSQL, orders started with one HTTP call each.
 */
@ExtendWith(SagaStack.Resolver.class)
class OrderSagaEndToEndIT {

  private static SagaStack saga;

  @BeforeAll
  static void stack(SagaStack s) {
    saga = s;
  }

  private static String order(String what) {
    return "e2e-" + what + "-" + UUID.randomUUID().toString().substring(0, 6);
  }

  @Test
  void aGoodOrderIsReservedChargedAndShipped() throws Exception {
    String order = order("ok");
    int booksBefore = saga.example("inventory", InventoryWorker.class).available("book");
    String id = saga.startOrder(order, Map.of("sku", "book", "quantity", 2, "amount", 42));

    SagaAssertions.goodOrderShipped(saga.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(30)), order);
    assertThat(saga.example("inventory", InventoryWorker.class).available("book")).isEqualTo(booksBefore - 2);
    assertThat(saga.example("payment", PaymentWorker.class).ledger())
        .filteredOn(e -> e.order().equals(order)).extracting(PaymentWorker.Entry::type).containsExactly("CHARGE");
  }

  @Test
  void aRefusedPaymentReleasesTheStockAndTextsTheCustomer() throws Exception {
    String order = order("declined");
    InventoryWorker inventory = saga.example("inventory", InventoryWorker.class);
    int mugsBefore = inventory.available("mug");
    String id = saga.startOrder(order, Map.of("sku", "mug", "quantity", 3, "card", "declined"));

    SagaAssertions.declinedCardCompensated(saga.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(30)), order);
    assertThat(inventory.available("mug")).isEqualTo(mugsBefore);
    assertThat(inventory.reservation(order)).isEmpty();
    assertThat(saga.example("payment", PaymentWorker.class).ledger()).noneMatch(e -> e.order().equals(order));

    SmsWorker sms = saga.example("sms", SmsWorker.class);
    await("the text to the customer").atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(sms.sent()).filteredOn(t -> t.instanceId().equals(id)).singleElement().satisfies(t -> {
          assertThat(t.errorCode()).isEqualTo("CARD_DECLINED");
          assertThat(t.routingKey()).isEqualTo("order.pay.failed");
          assertThat(t.text()).contains("could not take payment", "CARD_DECLINED");
        }));
  }

  @Test
  void aFlakyCarrierIsRetriedAlongTheStaircaseUntilTheParcelIsBooked() throws Exception {
    String order = order("flaky");
    String id = saga.startOrder(order, Map.of("sku", "book", "flakyShipping", 2));

    JsonNode done = saga.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(40));
    // one dispatch by the runtime; the worker retried it itself, through the 1s and 2s retry tiers
    assertThat(done.path("steps").get(2).path("attempt").asInt()).isEqualTo(1);
    List<ShippingWorker.Delivery> deliveries = saga.example("shipping", ShippingWorker.class).deliveries(order);
    assertThat(deliveries).extracting(ShippingWorker.Delivery::retries).containsExactly(0, 1, 2);
    assertThat(deliveries).extracting(ShippingWorker.Delivery::failed).containsExactly(true, true, false);
    assertThat(deliveries).extracting(ShippingWorker.Delivery::messageId).containsOnly(deliveries.get(0).messageId());
    assertThat(Duration.between(deliveries.get(0).at(), deliveries.get(1).at())).isGreaterThanOrEqualTo(Duration.ofMillis(900));
    assertThat(Duration.between(deliveries.get(1).at(), deliveries.get(2).at())).isGreaterThanOrEqualTo(Duration.ofMillis(1800));
  }
}
