package dev.baton.examples;

import dev.baton.worker.BatonWorker;
import dev.baton.worker.Command;
import dev.baton.worker.CommandResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code shipping}: {@code ship} books the parcel with the carrier. The carrier is flaky on demand: with input
 * {@code flakyShipping: n} the first n deliveries of a command throw {@link CarrierUnavailableException}, a technical
 * failure, so the SDK sends the command along its retry staircase ({@code quick}: after 1s, 2s, 4s) and the delivery
 * after those succeeds. With n at least the policy's {@code maxAttempts} (4) the command is dead-lettered in
 * {@code q.dlx.shipping.ship}, an {@code error} event fails the step and the order is compensated; replaying the
 * dead letter ({@code baton dlq replay q.dlx.shipping.ship}) delivers it again and counts on.
 *
 * <p>Deliveries are counted per {@code message_id} in memory and recorded (with their {@code baton-retries}) for
 * whoever wants to see the staircase at work.
 */
public final class ShippingWorker implements ExampleWorker {

  private static final Logger LOG = LoggerFactory.getLogger(ShippingWorker.class);

  /** What {@code ship} reads from the order. */
  public record ShipInput(Integer flakyShipping) {}

  /** One delivery of a ship command, as the worker saw it. */
  public record Delivery(String messageId, String order, int retries, int delivery, boolean failed, Instant at) {}

  /** The simulated carrier did not answer: a technical failure, retried along the staircase. */
  public static final class CarrierUnavailableException extends RuntimeException {
    public CarrierUnavailableException(String message) {
      super(message);
    }
  }

  private final Map<String, Integer> deliveriesByMessage = new HashMap<>();
  private final List<Delivery> deliveries = new ArrayList<>();

  /** In a container: {@code java -cp baton-examples-workers-all.jar dev.baton.examples.ShippingWorker}, configured by the
   * environment the operator injects into the pods of WorkerService {@code shipping}. */
  public static void main(String[] args) {
    ExampleMain.run(new ShippingWorker());
  }

  @Override
  public String service() {
    return "shipping";
  }

  @Override
  public BatonWorker.Builder handlers(BatonWorker.Builder builder) {
    return builder.command("ship", this::ship);
  }

  private CommandResult ship(Command cmd) {
    ShipInput in = cmd.inputAs(ShipInput.class);
    return ship(cmd.messageId(), Orders.of(cmd), cmd.retries(), in.flakyShipping() == null ? 0 : in.flakyShipping());
  }

  /**
   * @param flaky how many deliveries of this command fail before one succeeds
   * @throws CarrierUnavailableException while the command has had no more than {@code flaky} deliveries
   */
  public synchronized CommandResult ship(String messageId, String order, int retries, int flaky) {
    int n = deliveriesByMessage.merge(messageId, 1, Integer::sum);
    boolean fails = n <= flaky;
    deliveries.add(new Delivery(messageId, order, retries, n, fails, Instant.now()));
    if (fails) {
      LOG.info("shipping: the carrier does not answer for order {} (simulated: delivery {} of {} fails, baton-retries {})",
          order, n, flaky, retries);
      throw new CarrierUnavailableException("carrier API timed out (simulated: flakyShipping=" + flaky + ", delivery "
          + n + ")");
    }
    String tracking = "TRK-" + order.toUpperCase(java.util.Locale.ROOT);
    LOG.info("shipping: parcel for order {} booked, tracking {} (delivery {}, baton-retries {})", order, tracking, n,
        retries);
    return CommandResult.success(Map.of("trackingNumber", tracking, "carrier", "ParcelCo"));
  }

  /** Every delivery so far, oldest first. */
  public synchronized List<Delivery> deliveries() {
    return List.copyOf(deliveries);
  }

  /** The deliveries of one order, oldest first. */
  public synchronized List<Delivery> deliveries(String order) {
    return deliveries.stream().filter(d -> d.order().equals(order)).toList();
  }
}
