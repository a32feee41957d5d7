package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The order saga of the README quickstart end to end with {@code baton dev --workers python} and {@code --workers
 * typescript}: the example workers of {@code examples-workers/python} and {@code examples-workers/typescript} run as
 * child processes of {@code baton dev} (in-process, one stack per language), on the real RabbitMQ and PostgreSQL,
 * with the saga applied by the real kubectl and the orders started and read through the runtime's HTTP API. What
 * {@code OrderSagaEndToEndIT} shows for the Java workers, seen from outside the workers here (their state lives in
 * their own processes). A language whose runtime is missing fails, saying what to install or build.
 */
class OrderSagaInEveryLanguageIT {

  @ParameterizedTest(name = "--workers {0}")
  @EnumSource(value = WorkerLanguage.class, names = {"PYTHON", "TYPESCRIPT"})
  void aGoodOrderSucceedsADeclinedCardIsCompensatedAndNoWorkerOutlivesBatonDev(WorkerLanguage workers)
      throws Exception {
    List<ProcessHandle> children;
    try (SagaStack saga = SagaStack.start(workers)) {
      children = exampleWorkerProcesses();
      assertThat(children).as("the example workers' child processes").hasSize(4);
      String good = order(workers, "ok");
      String declined = order(workers, "declined");
      // both at once: each language's stack is started once, and the two orders do not share stock or a ledger entry
      String goodId = saga.startOrder(good, Map.of("sku", "book", "quantity", 2, "amount", 42));
      String declinedId = saga.startOrder(declined, Map.of("sku", "mug", "quantity", 3, "card", "declined"));

      aGoodOrderIsReservedChargedAndShipped(saga.awaitStatus(goodId, "SUCCEEDED", Duration.ofSeconds(30)), good);
      aDeclinedCardReleasesTheStockAndTextsTheCustomer(saga, declinedId, declined);
    }
    assertThat(children).as("the example workers' processes once baton dev has stopped")
        .noneMatch(ProcessHandle::isAlive);
    assertThat(exampleWorkerProcesses()).as("example workers' processes left behind").isEmpty();
  }

  private static void aGoodOrderIsReservedChargedAndShipped(JsonNode done, String order) {
    SagaAssertions.goodOrderShipped(done, order);
    JsonNode outputs = done.path("outputs");
    assertThat(outputs.path("reserve-stock").path("reservationId").asText()).isEqualTo("res-" + order);
    assertThat(outputs.path("reserve-stock").path("sku").asText()).isEqualTo("book");
    assertThat(outputs.path("reserve-stock").path("quantity").asInt()).isEqualTo(2);
    assertThat(outputs.path("charge").path("paymentId").asText()).isEqualTo("pay-" + order);
    assertThat(outputs.path("charge").path("amount").asDouble()).isEqualTo(42.0);
    assertThat(outputs.path("ship").path("carrier").asText()).isEqualTo("ParcelCo");
  }

  private static void aDeclinedCardReleasesTheStockAndTextsTheCustomer(SagaStack saga, String id, String order) {
    JsonNode done = saga.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(30));
    SagaAssertions.declinedCardCompensated(done, order);
    JsonNode release = done.path("steps").get(2).path("output");
    assertThat(release.path("released").asBoolean()).as("the inventory worker released the stock: %s", release)
        .isTrue();
    assertThat(release.path("reservationId").asText()).isEqualTo("res-" + order);

    // the sms worker is no step: its text shows on baton dev's console, behind its prefix
    String sms = "[" + saga.workers + ":sms] ";
    await("the text to the customer of " + id).atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(saga.console().lines().filter(l -> l.startsWith(sms) && l.contains(id)))
            .singleElement().asString().contains("texted the customer", "could not take payment", "CARD_DECLINED"));
  }

  private static String order(WorkerLanguage workers, String what) {
    return "saga-" + workers + "-" + what + "-" + UUID.randomUUID().toString().substring(0, 6);
  }

  /** This JVM's child processes running a program of the checkout's {@code examples-workers}. */
  private static List<ProcessHandle> exampleWorkerProcesses() {
    String programs = DevRun.repository().resolve("examples-workers").toString();
    return ProcessHandle.current().descendants()
        .filter(p -> p.info().commandLine().map(c -> c.contains(programs)).orElse(false))
        .toList();
  }
}
