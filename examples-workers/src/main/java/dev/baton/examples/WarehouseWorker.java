package dev.baton.examples;

import dev.baton.worker.BatonWorker;
import dev.baton.worker.Command;
import dev.baton.worker.CommandResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code warehouse}: the order-shipments example's map ({@code examples/order-shipments/}). {@code ship-item} ships
 * one item of an order as a parcel of its own, once per iteration of the map {@code ship-items}; {@code return-item}
 * (its compensation) takes the parcel back. Input (the step's mapping): {@code sku}, {@code qty} (default 1) and
 * {@code index}, the item's position in the order.
 *
 * <ul>
 *   <li>sku {@code "broken"}: {@code failed ITEM_DAMAGED}, a business failure (never retried): the map fails and the
 *       order is compensated.
 *   <li>sku {@code "slow"}: the handler holds the item for {@link #DEFAULT_SLOW_HOLD} (3 minutes), longer than the
 *       Workflow's {@code spec.timeout}, so the instance runs past its deadline. The SDK interrupts the handler at the
 *       command's {@code baton-deadline} (the instance's, since the step has no timeout of its own); an interrupted
 *       hold ships nothing, and a hold that ends after the deadline ships nothing either (the effect is fenced by the
 *       deadline, as {@link Command#deadline()} suggests): the runtime may already have sent {@code return-item}.
 *   <li>any other sku ships: {@code parcel: PCL-<ORDER>-<index>}.
 * </ul>
 *
 * <p>Both commands are idempotent per order and item index (beyond the SDK's message-id check), and {@code return-item}
 * of an item never shipped succeeds with {@code returned: false}. Each line it logs names the step as its command's
 * {@code baton-step} header does, {@code ship-item[<index>]}. It consumes with {@value #CONCURRENCY} channels per
 * queue, as many as the map's {@code maxConcurrency}, so that a slow item does not hold the others back.
 */
public final class WarehouseWorker implements ExampleWorker {

  private static final Logger LOG = LoggerFactory.getLogger(WarehouseWorker.class);

  /** How long a {@code "slow"} item is held by default: longer than order-shipments' {@code spec.timeout} (2m). */
  public static final Duration DEFAULT_SLOW_HOLD = Duration.ofMinutes(3);
  /** Channels per queue: the map {@code ship-items} runs at most 5 iterations at once. */
  static final int CONCURRENCY = 5;

  /** What {@code ship-item} and {@code return-item} read: the step's input mapping. */
  public record ItemInput(String sku, Integer qty, Integer index) {}

  /** A parcel on its way: one item of an order. */
  public record Parcel(String parcelId, String order, int index, String sku, int qty, String step, Instant at) {}

  /** A line of the warehouse's journal: {@code SHIPPED} or {@code RETURNED}. */
  public record Movement(String type, String order, int index, String sku, String step, Instant at) {}

  private final Duration slowHold;
  private final Map<String, Parcel> shipped = new LinkedHashMap<>();
  private final List<Movement> journal = new ArrayList<>();

  public WarehouseWorker() {
    this(DEFAULT_SLOW_HOLD);
  }

  /** @param slowHold how long a {@code "slow"} item is held before it ships */
  public WarehouseWorker(Duration slowHold) {
    this.slowHold = slowHold;
  }

  /** In a container: {@code java -cp baton-examples-workers-all.jar dev.baton.examples.WarehouseWorker}, configured
   * by the environment the operator injects into the pods of WorkerService {@code warehouse}. */
  public static void main(String[] args) {
    ExampleMain.run(new WarehouseWorker());
  }

  @Override
  public String service() {
    return "warehouse";
  }

  @Override
  public BatonWorker.Builder handlers(BatonWorker.Builder builder) {
    return builder
        .concurrency(CONCURRENCY)
        .command("ship-item", cmd -> shipItem(Orders.of(cmd), cmd.step(), cmd.inputAs(ItemInput.class),
            cmd.deadline().orElse(null)))
        .command("return-item", cmd -> returnItem(Orders.of(cmd), cmd.step(), cmd.inputAs(ItemInput.class)));
  }

  /**
   * Ships one item of an order, or says why not.
   *
   * @param step the command's {@code baton-step}, e.g. {@code ship-item[2]} (for the log)
   * @param deadline the command's {@code baton-deadline}, or null: a slow item that ends its hold after it ships nothing
   * @throws InterruptedException when a slow item's hold is interrupted (the SDK does so at the deadline)
   */
  public CommandResult shipItem(String order, String step, ItemInput in, Instant deadline) throws InterruptedException {
    int index = in.index() == null ? 0 : in.index();
    String sku = in.sku() == null || in.sku().isBlank() ? "unknown" : in.sku();
    int qty = in.qty() == null ? 1 : in.qty();
    synchronized (this) {
      Parcel existing = shipped.get(key(order, index));
      if (existing != null) {
        return CommandResult.success(output(existing));
      }
    }
    if (qty < 1) {
      return CommandResult.failed("INVALID_QUANTITY", "item " + index + " of order " + order + " asks for " + qty
          + " x " + sku);
    }
    if ("broken".equalsIgnoreCase(sku)) {
      LOG.info("warehouse: item {} of order {} is damaged, not shipped ({})", index, order, step);
      return CommandResult.failed("ITEM_DAMAGED", "item " + index + " (" + sku + ") of order " + order
          + " is damaged and cannot be shipped");
    }
    if ("slow".equalsIgnoreCase(sku)) {
      LOG.info("warehouse: item {} of order {} is slow to pick, holding it for {} ({})", index, order, slowHold, step);
      Thread.sleep(slowHold.toMillis()); // interrupted by the SDK at the command's deadline
      if (deadline != null && !Instant.now().isBefore(deadline)) {
        LOG.info("warehouse: item {} of order {} picked after the deadline {}: not shipped ({})", index, order,
            deadline, step);
        throw new IllegalStateException("item " + index + " of order " + order + " was picked after the deadline "
            + deadline + ": not shipped");
      }
    }
    synchronized (this) {
      Parcel existing = shipped.get(key(order, index));
      if (existing != null) {
        return CommandResult.success(output(existing));
      }
      Parcel p = new Parcel("PCL-" + order.toUpperCase(Locale.ROOT) + "-" + index, order, index, sku, qty, step,
          Instant.now());
      shipped.put(key(order, index), p);
      journal.add(new Movement("SHIPPED", order, index, sku, step, p.at()));
      LOG.info("warehouse: shipped {} x {} of order {} as parcel {} ({})", qty, sku, order, p.parcelId(), step);
      return CommandResult.success(output(p));
    }
  }

  /** Takes an item's parcel back (compensation of ship-item); an item never shipped has nothing to return. */
  public synchronized CommandResult returnItem(String order, String step, ItemInput in) {
    int index = in.index() == null ? 0 : in.index();
    Parcel p = shipped.remove(key(order, index));
    if (p == null) {
      LOG.info("warehouse: item {} of order {} was never shipped, nothing to return ({})", index, order, step);
      return CommandResult.success(Map.of("returned", false, "index", index));
    }
    journal.add(new Movement("RETURNED", order, index, p.sku(), step, Instant.now()));
    LOG.info("warehouse: parcel {} ({} x {}) of order {} returned (compensation, {})", p.parcelId(), p.qty(), p.sku(),
        order, step);
    return CommandResult.success(Map.of("returned", true, "index", index, "parcel", p.parcelId()));
  }

  /** The parcel of an order's item, while it is shipped. */
  public synchronized Optional<Parcel> parcel(String order, int index) {
    return Optional.ofNullable(shipped.get(key(order, index)));
  }

  /** Every shipment and return so far, oldest first. */
  public synchronized List<Movement> journal() {
    return List.copyOf(journal);
  }

  /** An order's shipments and returns, oldest first. */
  public synchronized List<Movement> journal(String order) {
    return journal.stream().filter(m -> m.order().equals(order)).toList();
  }

  private static Map<String, Object> output(Parcel p) {
    return Map.of("parcel", p.parcelId(), "sku", p.sku(), "qty", p.qty(), "index", p.index());
  }

  private static String key(String order, int index) {
    return order + "#" + index;
  }
}
