package dev.baton.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.contract.EventResult;
import dev.baton.worker.CommandResult;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
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
  void warehouseShipsEachItemOnceRefusesBrokenOnesAndReturnsWhatItShipped() throws Exception {
    WarehouseWorker warehouse = new WarehouseWorker();
    CommandResult first = warehouse.shipItem("o-1", "ship-item[0]", new WarehouseWorker.ItemInput("book", 2, 0), null);
    assertThat(first.result()).isEqualTo(EventResult.SUCCESS);
    assertThat(first.output().path("parcel").asText()).isEqualTo("PCL-O-1-0");
    assertThat(first.output().path("qty").asInt()).isEqualTo(2);
    assertThat(warehouse.shipItem("o-1", "ship-item[0]", new WarehouseWorker.ItemInput("book", 2, 0), null))
        .isEqualTo(first);
    assertThat(warehouse.shipItem("o-1", "ship-item[1]", new WarehouseWorker.ItemInput("mug", null, 1), null)
        .output().path("qty").asInt()).isEqualTo(1);

    CommandResult broken = warehouse.shipItem("o-1", "ship-item[2]", new WarehouseWorker.ItemInput("broken", 1, 2),
        null);
    assertThat(broken.result()).isEqualTo(EventResult.FAILED);
    assertThat(broken.errorCode()).isEqualTo("ITEM_DAMAGED");
    assertThat(broken.reason()).contains("item 2", "o-1");
    assertThat(warehouse.parcel("o-1", 2)).isEmpty();
    assertThat(warehouse.shipItem("o-2", "ship-item[0]", new WarehouseWorker.ItemInput("book", 0, 0), null)
        .errorCode()).isEqualTo("INVALID_QUANTITY");

    // compensation, newest first: nothing to return for the broken item, then the two parcels, each once
    assertThat(warehouse.returnItem("o-1", "ship-item[2]", new WarehouseWorker.ItemInput("broken", 1, 2))
        .output().path("returned").asBoolean()).isFalse();
    assertThat(warehouse.returnItem("o-1", "ship-item[1]", new WarehouseWorker.ItemInput("mug", 1, 1))
        .output().path("parcel").asText()).isEqualTo("PCL-O-1-1");
    assertThat(warehouse.returnItem("o-1", "ship-item[0]", new WarehouseWorker.ItemInput("book", 2, 0))
        .output().path("returned").asBoolean()).isTrue();
    assertThat(warehouse.returnItem("o-1", "ship-item[0]", new WarehouseWorker.ItemInput("book", 2, 0))
        .output().path("returned").asBoolean()).isFalse();
    assertThat(warehouse.journal("o-1")).extracting(WarehouseWorker.Movement::type)
        .containsExactly("SHIPPED", "SHIPPED", "RETURNED", "RETURNED");
    assertThat(warehouse.journal("o-1")).extracting(WarehouseWorker.Movement::step)
        .containsExactly("ship-item[0]", "ship-item[1]", "ship-item[1]", "ship-item[0]");
  }

  @Test
  void warehouseHoldsASlowItemAndShipsNothingWhenTheHoldEndsPastTheDeadline() throws Exception {
    WarehouseWorker warehouse = new WarehouseWorker(Duration.ofMillis(200));
    long started = System.nanoTime();
    CommandResult slow = warehouse.shipItem("o-1", "ship-item[0]", new WarehouseWorker.ItemInput("slow", 1, 0),
        Instant.now().plusSeconds(60));
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    assertThat(slow.output().path("parcel").asText()).isEqualTo("PCL-O-1-0");

    assertThatThrownBy(() -> warehouse.shipItem("o-2", "ship-item[0]", new WarehouseWorker.ItemInput("slow", 1, 0),
        Instant.now().plusMillis(50))).isInstanceOf(IllegalStateException.class).hasMessageContaining("deadline");
    assertThat(warehouse.parcel("o-2", 0)).isEmpty();

    // the SDK interrupts a handler at its command's deadline: the hold ends, nothing ships
    WarehouseWorker held = new WarehouseWorker(Duration.ofMinutes(3));
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> held.shipItem("o-3", "ship-item[0]", new WarehouseWorker.ItemInput("slow", 1, 0), null))
        .isInstanceOf(InterruptedException.class);
    assertThat(held.parcel("o-3", 0)).isEmpty();
    assertThat(WarehouseWorker.DEFAULT_SLOW_HOLD).isGreaterThan(Duration.ofMinutes(2)); // order-shipments' spec.timeout
  }

  @Test
  void accountingDraftsAndIssuesOnceRefusesTestOrdersAndUndoesNewestFirst() {
    AccountingWorker accounting = new AccountingWorker();
    CommandResult draft = accounting.draft("i-1/invoice", new AccountingWorker.InvoiceInput("o-1", 3));
    assertThat(draft.output().path("invoiceId").asText()).isEqualTo("INV-O-1");
    assertThat(draft.output().path("status").asText()).isEqualTo("DRAFT");
    assertThat(accounting.draft("i-1/invoice", new AccountingWorker.InvoiceInput("o-1", 3))).isEqualTo(draft);
    CommandResult issued = accounting.issue("i-1/invoice");
    assertThat(issued.output().path("status").asText()).isEqualTo("ISSUED");
    assertThat(issued.output().path("lines").asInt()).isEqualTo(3);
    assertThat(accounting.issue("i-1/invoice")).isEqualTo(issued);

    // the parent failed later: the child is compensated, void then discard, each once
    assertThat(accounting.voidInvoice("i-1/invoice").output().path("voided").asBoolean()).isTrue();
    assertThat(accounting.voidInvoice("i-1/invoice").output().path("voided").asBoolean()).isFalse();
    assertThat(accounting.discard("i-1/invoice").output().path("discarded").asBoolean()).isTrue();
    assertThat(accounting.discard("i-1/invoice").output().path("discarded").asBoolean()).isFalse();
    assertThat(accounting.history()).extracting(AccountingWorker.Invoice::status)
        .containsExactly("DRAFT", "ISSUED", "VOIDED", "DISCARDED");

    accounting.draft("i-2/invoice", new AccountingWorker.InvoiceInput("x-2", 1));
    CommandResult refused = accounting.issue("i-2/invoice");
    assertThat(refused.result()).isEqualTo(EventResult.FAILED);
    assertThat(refused.errorCode()).isEqualTo("INVOICE_REFUSED");
    assertThat(refused.reason()).contains("x-2");
    assertThat(accounting.voidInvoice("i-2/invoice").output().path("voided").asBoolean()).isFalse();
    assertThat(accounting.discard("i-2/invoice").output().path("discarded").asBoolean()).isTrue();
    assertThat(accounting.issue("i-3/invoice").errorCode()).isEqualTo("NO_DRAFT");
    assertThat(accounting.draft("i-4/invoice", new AccountingWorker.InvoiceInput(null, 1)).errorCode())
        .isEqualTo("NO_ORDER");
  }

  @Test
  void notificationsTellTheCustomerHowTheirOrderEnded() throws Exception {
    ObjectMapper json = new ObjectMapper();
    NotificationsWorker notifications = new NotificationsWorker();
    JsonNode succeeded = json.readTree("""
        {"id": "i-1", "businessKey": "o-1", "workflow": "order-shipments", "status": "SUCCEEDED",
         "outputs": {"ship-items": [{"parcel": "PCL-O-1-0"}, {"parcel": "PCL-O-1-1"}],
                     "invoice": {"draft": {"invoiceId": "INV-O-1"}, "issue": {"invoiceId": "INV-O-1"}}},
         "lastError": null}""");
    assertThat(notifications.notify("default.order-shipments.succeeded", succeeded, "i-1").text())
        .isEqualTo("Your order o-1 is on its way: 2 parcel(s), invoice INV-O-1.");
    JsonNode compensated = json.readTree("""
        {"id": "i-2", "businessKey": "o-2", "status": "COMPENSATED", "outputs": {},
         "lastError": {"step": "ship-item[2]", "errorCode": "ITEM_DAMAGED", "reason": "item 2 is damaged"}}""");
    assertThat(notifications.notify("default.order-shipments.compensated", compensated, null).text())
        .contains("o-2", "ITEM_DAMAGED: item 2 is damaged", "undone");
    assertThat(notifications.notify("default.order-shipments.cancelled", json.readTree("{}"), "i-3").text())
        .isEqualTo("Your order i-3 was cancelled.");
    assertThat(notifications.sent()).extracting(NotificationsWorker.Notification::status)
        .containsExactly("SUCCEEDED", "COMPENSATED", "CANCELLED");
  }

  @Test
  void everyNamedExampleExistsAndServesItsService() {
    for (String name : ExampleWorkers.NAMES) {
      assertThat(ExampleWorkers.create(name)).get().extracting(ExampleWorker::service).isEqualTo(name);
    }
    assertThat(ExampleWorkers.create("billing")).isEmpty();
  }
}
