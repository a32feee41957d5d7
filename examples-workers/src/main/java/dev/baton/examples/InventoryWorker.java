package dev.baton.examples;

import dev.baton.worker.BatonWorker;
import dev.baton.worker.CommandResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code inventory}: {@code reserve} takes stock for an order, {@code release} gives it back when the order is
 * compensated. Stock lives in memory (book 100, mug 50, poster 5). Input: {@code sku} (default {@code book}) and
 * {@code quantity} (default 1). More than is in stock, or an unknown item, is a business failure
 * ({@code OUT_OF_STOCK}, {@code UNKNOWN_ITEM}): the order fails at its first step, with nothing to compensate.
 *
 * <p>Both commands are idempotent per order, beyond the SDK's message-id check: a second {@code reserve} of an order
 * returns its reservation, a {@code release} of an order with none succeeds without touching the stock.
 */
public final class InventoryWorker implements ExampleWorker {

  private static final Logger LOG = LoggerFactory.getLogger(InventoryWorker.class);

  /** What {@code reserve} reads from the order; absent fields take their defaults. */
  public record ReserveInput(String sku, Integer quantity) {}

  /** Stock set aside for an order. */
  public record Reservation(String reservationId, String order, String sku, int quantity) {}

  private final Map<String, Integer> stock = new LinkedHashMap<>();
  private final Map<String, Reservation> reservations = new LinkedHashMap<>();

  public InventoryWorker() {
    this(Map.of("book", 100, "mug", 50, "poster", 5));
  }

  public InventoryWorker(Map<String, Integer> initialStock) {
    stock.putAll(initialStock);
  }

  /** In a container: {@code java -cp baton-examples-workers-all.jar dev.baton.examples.InventoryWorker}, configured by the
   * environment the operator injects into the pods of WorkerService {@code inventory}. */
  public static void main(String[] args) {
    ExampleMain.run(new InventoryWorker());
  }

  @Override
  public String service() {
    return "inventory";
  }

  @Override
  public BatonWorker.Builder handlers(BatonWorker.Builder builder) {
    return builder
        .command("reserve", cmd -> reserve(Orders.of(cmd), cmd.inputAs(ReserveInput.class)))
        .command("release", cmd -> release(Orders.of(cmd)));
  }

  /** Reserves the order's items, or says why not. */
  public synchronized CommandResult reserve(String order, ReserveInput in) {
    Reservation existing = reservations.get(order);
    if (existing != null) {
      return CommandResult.success(existing);
    }
    String sku = in.sku() == null || in.sku().isBlank() ? "book" : in.sku();
    int quantity = in.quantity() == null ? 1 : in.quantity();
    if (quantity < 1) {
      return CommandResult.failed("INVALID_QUANTITY", "order " + order + " asks for " + quantity + " x " + sku);
    }
    Integer available = stock.get(sku);
    if (available == null) {
      return CommandResult.failed("UNKNOWN_ITEM", "no item '" + sku + "' in the catalogue (order " + order + ")");
    }
    if (available < quantity) {
      return CommandResult.failed("OUT_OF_STOCK",
          "order " + order + " asks for " + quantity + " x " + sku + ", only " + available + " in stock");
    }
    stock.put(sku, available - quantity);
    Reservation r = new Reservation("res-" + order, order, sku, quantity);
    reservations.put(order, r);
    LOG.info("inventory: reserved {} x {} for order {} ({} left)", quantity, sku, order, available - quantity);
    return CommandResult.success(r);
  }

  /** Gives the order's reserved stock back (compensation of reserve). */
  public synchronized CommandResult release(String order) {
    Reservation r = reservations.remove(order);
    if (r == null) {
      LOG.info("inventory: nothing reserved for order {}, nothing to release", order);
      return CommandResult.success(Map.of("released", false));
    }
    stock.merge(r.sku(), r.quantity(), Integer::sum);
    LOG.info("inventory: released {} x {} of order {} (compensation)", r.quantity(), r.sku(), order);
    return CommandResult.success(Map.of("released", true, "reservationId", r.reservationId()));
  }

  public synchronized int available(String sku) {
    return stock.getOrDefault(sku, 0);
  }

  public synchronized Optional<Reservation> reservation(String order) {
    return Optional.ofNullable(reservations.get(order));
  }
}
