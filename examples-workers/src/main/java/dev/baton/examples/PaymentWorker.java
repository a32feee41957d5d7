package dev.baton.examples;

import dev.baton.worker.BatonWorker;
import dev.baton.worker.CommandResult;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code payment}: {@code pay} charges the order, {@code refund} pays it back when the order is compensated. The
 * ledger lives in memory. Input: {@code amount} (default 25.00) and {@code card}. The bank refuses, as a business
 * failure that is never retried, a card {@code "declined"} ({@code CARD_DECLINED}) and an amount over
 * {@value #LIMIT} ({@code INSUFFICIENT_FUNDS}); the {@code failed} event also reaches the sms service, which
 * subscribes to {@code *.pay.failed}. {@code authorize} (the order-approval example's) puts a hold on the amount
 * (a declined card is refused; an amount over the limit is held, for a person to approve), and {@code void} releases
 * it when that order is compensated.
 */
public final class PaymentWorker implements ExampleWorker {

  private static final Logger LOG = LoggerFactory.getLogger(PaymentWorker.class);

  /** The most a card may be charged. */
  public static final int LIMIT = 1000;
  private static final BigDecimal DEFAULT_AMOUNT = new BigDecimal("25.00");

  /** What {@code pay} reads from the order. */
  public record PayInput(BigDecimal amount, String card) {}

  /** A ledger line. */
  public record Entry(String id, String order, String type, BigDecimal amount, Instant at) {}

  private final List<Entry> ledger = new ArrayList<>();

  /** In a container: {@code java -cp baton-examples-workers-all.jar dev.baton.examples.PaymentWorker}, configured by the
   * environment the operator injects into the pods of WorkerService {@code payment}. */
  public static void main(String[] args) {
    ExampleMain.run(new PaymentWorker());
  }

  @Override
  public String service() {
    return "payment";
  }

  @Override
  public BatonWorker.Builder handlers(BatonWorker.Builder builder) {
    return builder
        .command("pay", cmd -> pay(Orders.of(cmd), cmd.inputAs(PayInput.class)))
        .command("refund", cmd -> refund(Orders.of(cmd)))
        .command("authorize", cmd -> authorize(Orders.of(cmd), cmd.inputAs(PayInput.class)))
        .command("void", cmd -> voidHold(Orders.of(cmd)));
  }

  /** Charges the order once (a second pay of the same order returns the first charge). */
  public synchronized CommandResult pay(String order, PayInput in) {
    return book(order, in, "CHARGE", "pay", "paymentId", "charged");
  }

  /** Holds the amount once (order-approval); refuses a declined card, and holds any amount (approval decides). */
  public synchronized CommandResult authorize(String order, PayInput in) {
    return book(order, in, "HOLD", "auth", "authorizationId", "held");
  }

  /** Releases the order's hold once (compensation of authorize); an order never authorized has nothing to void. */
  public synchronized CommandResult voidHold(String order) {
    Optional<Entry> voided = find(order, "VOID");
    if (voided.isPresent()) {
      return CommandResult.success(Map.of("voidId", voided.get().id(), "released", voided.get().amount()));
    }
    Optional<Entry> held = find(order, "HOLD");
    if (held.isEmpty()) {
      return CommandResult.success(Map.of("released", 0));
    }
    Entry e = new Entry("void-" + order, order, "VOID", held.get().amount(), Instant.now());
    ledger.add(e);
    LOG.info("payment: released the hold of {} on order {} (compensation)", e.amount(), order);
    return CommandResult.success(Map.of("voidId", e.id(), "released", e.amount()));
  }

  private CommandResult book(String order, PayInput in, String type, String prefix, String idField, String verb) {
    Optional<Entry> booked = find(order, type);
    if (booked.isPresent()) {
      return CommandResult.success(Map.of(idField, booked.get().id(), "amount", booked.get().amount()));
    }
    BigDecimal amount = in.amount() == null ? DEFAULT_AMOUNT : in.amount();
    if ("declined".equalsIgnoreCase(in.card())) {
      LOG.info("payment: card declined for order {}", order);
      return CommandResult.failed("CARD_DECLINED", "the card was declined by the issuer (order " + order + ")");
    }
    if (amount.compareTo(BigDecimal.valueOf(LIMIT)) > 0 && type.equals("CHARGE")) {
      LOG.info("payment: {} over the limit for order {}", amount, order);
      return CommandResult.failed("INSUFFICIENT_FUNDS",
          "amount " + amount + " exceeds the available funds of " + LIMIT + " (order " + order + ")");
    }
    Entry e = new Entry(prefix + "-" + order, order, type, amount, Instant.now());
    ledger.add(e);
    LOG.info("payment: {} {} for order {}", verb, amount, order);
    return CommandResult.success(Map.of(idField, e.id(), "amount", amount));
  }

  /** Pays the order's charge back once (compensation of pay); an order never charged has nothing to refund. */
  public synchronized CommandResult refund(String order) {
    Optional<Entry> refunded = find(order, "REFUND");
    if (refunded.isPresent()) {
      return CommandResult.success(Map.of("refundId", refunded.get().id(), "refunded", refunded.get().amount()));
    }
    Optional<Entry> charged = find(order, "CHARGE");
    if (charged.isEmpty()) {
      LOG.info("payment: order {} was never charged, nothing to refund", order);
      return CommandResult.success(Map.of("refunded", 0));
    }
    Entry e = new Entry("refund-" + order, order, "REFUND", charged.get().amount(), Instant.now());
    ledger.add(e);
    LOG.info("payment: refunded {} to order {} (compensation)", e.amount(), order);
    return CommandResult.success(Map.of("refundId", e.id(), "refunded", e.amount()));
  }

  public synchronized List<Entry> ledger() {
    return List.copyOf(ledger);
  }

  private Optional<Entry> find(String order, String type) {
    return ledger.stream().filter(e -> e.order().equals(order) && e.type().equals(type)).findFirst();
  }
}
