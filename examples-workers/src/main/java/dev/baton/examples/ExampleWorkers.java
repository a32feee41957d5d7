package dev.baton.examples;

import java.util.List;
import java.util.Optional;

/** The example workers by name, as the label {@code baton.dev/example-worker} on a WorkerService names them. */
public final class ExampleWorkers {

  /** A WorkerService with this label is served in-process by {@code baton dev}, by the example worker it names. */
  public static final String LABEL = "baton.dev/example-worker";

  public static final List<String> NAMES = List.of("inventory", "payment", "shipping", "sms", "risk", "warehouse",
      "accounting", "notifications");

  private ExampleWorkers() {}

  /** A new example worker (with fresh state), or empty when there is none of that name. */
  public static Optional<ExampleWorker> create(String name) {
    return Optional.ofNullable(switch (name == null ? "" : name) {
      case "inventory" -> new InventoryWorker();
      case "payment" -> new PaymentWorker();
      case "shipping" -> new ShippingWorker();
      case "sms" -> new SmsWorker();
      case "risk" -> new RiskWorker();
      case "warehouse" -> new WarehouseWorker();
      case "accounting" -> new AccountingWorker();
      case "notifications" -> new NotificationsWorker();
      default -> null;
    });
  }
}
