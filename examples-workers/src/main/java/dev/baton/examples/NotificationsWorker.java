package dev.baton.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.contract.Headers;
import dev.baton.worker.BatonWorker;
import dev.baton.worker.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code notifications}: not a step of any workflow but a subscriber to how the instances of order-shipments end
 * ({@code examples/order-shipments/}). Its queue {@code q.notifications.order-done} is bound to
 * {@code baton.instance.topic.ex} with {@code <namespace>.order-shipments.<outcome>} for each outcome the
 * subscription names (docs/message-contract.md#instance-outcomes), so the runtime's outcome event of every ended
 * order reaches it. It "notifies" the customer, which here means it records the message and logs it.
 */
public final class NotificationsWorker implements ExampleWorker {

  private static final Logger LOG = LoggerFactory.getLogger(NotificationsWorker.class);

  /** A notification sent: the outcome event it answers, and the text. */
  public record Notification(String instanceId, String businessKey, String routingKey, String status, String text,
      Instant at) {}

  private final List<Notification> sent = new ArrayList<>();

  /** In a container: {@code java -cp baton-examples-workers-all.jar dev.baton.examples.NotificationsWorker},
   * configured by the environment the operator injects into the pods of WorkerService {@code notifications}. */
  public static void main(String[] args) {
    ExampleMain.run(new NotificationsWorker());
  }

  @Override
  public String service() {
    return "notifications";
  }

  @Override
  public BatonWorker.Builder handlers(BatonWorker.Builder builder) {
    return builder.subscription("order-done", this::orderEnded);
  }

  private void orderEnded(Event event) {
    notify(event.routingKey(), event.body(), event.header(Headers.INSTANCE));
  }

  /**
   * Notifies the customer of an order that ended.
   *
   * @param routingKey {@code <namespace>.<workflow>.<outcome>}
   * @param body the outcome event's body ({@code id}, {@code businessKey}, {@code status}, {@code outputs},
   *     {@code lastError}, ...)
   * @param instanceHeader the {@code baton-instance} header, used when the body has no {@code id}
   */
  public Notification notify(String routingKey, JsonNode body, String instanceHeader) {
    String instance = body.path("id").asText(instanceHeader == null ? "" : instanceHeader);
    String order = body.path("businessKey").asText(instance);
    String status = body.path("status").asText(outcomeOf(routingKey).toUpperCase(Locale.ROOT));
    JsonNode error = body.path("lastError");
    String why = error.isObject()
        ? error.path("errorCode").asText("") + (error.path("reason").asText("").isEmpty() ? ""
            : ": " + error.path("reason").asText(""))
        : "";
    String text = switch (status) {
      case "SUCCEEDED" -> {
        JsonNode parcels = body.path("outputs").path("ship-items");
        JsonNode invoice = body.path("outputs").path("invoice").findValue("invoiceId");
        yield "Your order " + order + " is on its way: " + (parcels.isArray() ? parcels.size() : 0) + " parcel(s)"
            + (invoice == null ? "" : ", invoice " + invoice.asText()) + ".";
      }
      case "COMPENSATED" -> "We could not complete your order " + order + " (" + why
          + "); everything was undone and nothing is charged.";
      case "CANCELLED" -> "Your order " + order + " was cancelled.";
      default -> "Your order " + order + " ran into a problem (" + why + "); our team is looking into it.";
    };
    Notification n = new Notification(instance, order, routingKey, status, text, Instant.now());
    synchronized (this) {
      sent.add(n);
    }
    LOG.info("notifications: {} -> instance {}: \"{}\"", routingKey, instance, text);
    return n;
  }

  private static String outcomeOf(String routingKey) {
    return routingKey == null ? "" : routingKey.substring(routingKey.lastIndexOf('.') + 1);
  }

  /** Every notification sent so far, oldest first. */
  public synchronized List<Notification> sent() {
    return List.copyOf(sent);
  }
}
