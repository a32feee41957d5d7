package dev.baton.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.contract.EventResult;
import dev.baton.worker.CommandResult;
import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The business rules of the example workers, without a broker (the saga end to end is in the cli module). */
class ExampleWorkersTest {

  @Test
  void inventoryReservesOncePerOrderAndReleasesWhatItReserved() {
    InventoryWorker inventory = new InventoryWorker(Map.of("book", 3));
    CommandResult first = inventory.reserve("o-1", new InventoryWorker.ReserveInput("book", 2));
    assertThat(first.result()).isEqualTo(EventResult.SUCCESS);
    assertThat(first.output().path("reservationId").asText()).isEqualTo("res-o-1");
    assertThat(inventory.reserve("o-1", new InventoryWorker.ReserveInput("book", 2))).isEqualTo(first);
    assertThat(inventory.available("book")).isEqualTo(1);

    CommandResult refused = inventory.reserve("o-2", new InventoryWorker.ReserveInput("book", 2));
    assertThat(refused.result()).isEqualTo(EventResult.FAILED);
    assertThat(refused.errorCode()).isEqualTo("OUT_OF_STOCK");
    assertThat(refused.reason()).contains("o-2", "only 1 in stock");
    assertThat(inventory.reserve("o-3", new InventoryWorker.ReserveInput("lamp", null)).errorCode())
        .isEqualTo("UNKNOWN_ITEM");

    assertThat(inventory.release("o-1").output().path("released").asBoolean()).isTrue();
    assertThat(inventory.available("book")).isEqualTo(3);
    assertThat(inventory.release("o-1").output().path("released").asBoolean()).isFalse();
    assertThat(inventory.available("book")).isEqualTo(3);
  }

  @Test
  void paymentRefusesDeclinedCardsAndAmountsOverTheLimitAndRefundsOnce() {
    PaymentWorker payment = new PaymentWorker();
    CommandResult declined = payment.pay("o-1", new PaymentWorker.PayInput(null, "declined"));
    assertThat(declined.result()).isEqualTo(EventResult.FAILED);
    assertThat(declined.errorCode()).isEqualTo("CARD_DECLINED");
    CommandResult tooMuch = payment.pay("o-2", new PaymentWorker.PayInput(new BigDecimal("1000.01"), "visa"));
    assertThat(tooMuch.errorCode()).isEqualTo("INSUFFICIENT_FUNDS");
    assertThat(payment.ledger()).isEmpty();

    CommandResult paid = payment.pay("o-3", new PaymentWorker.PayInput(new BigDecimal("42.50"), null));
    assertThat(paid.output().path("paymentId").asText()).isEqualTo("pay-o-3");
    assertThat(payment.pay("o-3", new PaymentWorker.PayInput(new BigDecimal("42.50"), null))).isEqualTo(paid);
    assertThat(payment.refund("o-3").output().path("refunded").decimalValue()).isEqualByComparingTo("42.50");
    payment.refund("o-3");
    assertThat(payment.ledger()).extracting(PaymentWorker.Entry::type).containsExactly("CHARGE", "REFUND");
    assertThat(payment.refund("o-1").output().path("refunded").asInt()).isZero();
  }

  @Test
  void shippingFailsTheFirstFlakyDeliveriesOfACommandThenBooks() {
    ShippingWorker shipping = new ShippingWorker();
    assertThatThrownBy(() -> shipping.ship("m-1", "o-1", 0, 2))
        .isInstanceOf(ShippingWorker.CarrierUnavailableException.class).hasMessageContaining("delivery 1");
    assertThatThrownBy(() -> shipping.ship("m-1", "o-1", 1, 2))
        .isInstanceOf(ShippingWorker.CarrierUnavailableException.class);
    assertThat(shipping.ship("m-1", "o-1", 2, 2).output().path("trackingNumber").asText()).isEqualTo("TRK-O-1");
    assertThat(shipping.ship("m-2", "o-2", 0, 0).result()).isEqualTo(EventResult.SUCCESS);
    assertThat(shipping.deliveries("o-1")).extracting(ShippingWorker.Delivery::retries).containsExactly(0, 1, 2);
    assertThat(shipping.deliveries("o-1")).extracting(ShippingWorker.Delivery::failed).containsExactly(true, true, false);
  }

  @Test
  void paymentHoldsAnyAmountOnceAndVoidsTheHoldOnce() {
    PaymentWorker payment = new PaymentWorker();
    assertThat(payment.authorize("o-1", new PaymentWorker.PayInput(null, "declined")).errorCode())
        .isEqualTo("CARD_DECLINED");
    CommandResult held = payment.authorize("o-2", new PaymentWorker.PayInput(new BigDecimal("1500"), null));
    assertThat(held.output().path("authorizationId").asText()).isEqualTo("auth-o-2");
    assertThat(payment.authorize("o-2", new PaymentWorker.PayInput(new BigDecimal("1500"), null))).isEqualTo(held);
    assertThat(payment.voidHold("o-2").output().path("released").decimalValue()).isEqualByComparingTo("1500");
    payment.voidHold("o-2");
    assertThat(payment.ledger()).extracting(PaymentWorker.Entry::type).containsExactly("HOLD", "VOID");
    assertThat(payment.voidHold("o-1").output().path("released").asInt()).isZero();
  }

  @Test
  void riskScoresAStolenCardHighAndTakesAGivenScore() {
    RiskWorker risk = new RiskWorker();
    assertThat(risk.score(new RiskWorker.ScoreInput(null, "stolen", null)).output().path("score").asInt()).isEqualTo(95);
    assertThat(risk.score(new RiskWorker.ScoreInput(null, "visa", null)).output().path("score").asInt()).isEqualTo(10);
    assertThat(risk.score(new RiskWorker.ScoreInput(120, null, null)).output().path("score").asInt()).isEqualTo(100);
  }

  @Test
  void everyNamedExampleExistsAndServesItsService() {
    for (String name : ExampleWorkers.NAMES) {
      assertThat(ExampleWorkers.create(name)).get().extracting(ExampleWorker::service).isEqualTo(name);
    }
    assertThat(ExampleWorkers.create("billing")).isEmpty();
  }
}
