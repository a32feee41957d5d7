package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.assertj.core.groups.Tuple;

/**
 * What a finished instance of the order saga shows through the runtime's API, whichever language its example workers
 * are written in; a test adds what only its workers let it see.
 */
final class SagaAssertions {

  private SagaAssertions() {}

  /** The good order {@code order} was reserved, charged and shipped, under a tracking number made from it. */
  static void goodOrderShipped(JsonNode done, String order) {
    assertThat(executions(done)).containsExactly(
        tuple("reserve-stock", "task", "reserve", "SUCCEEDED"),
        tuple("charge", "task", "pay", "SUCCEEDED"),
        tuple("ship", "task", "ship", "SUCCEEDED"));
    assertThat(done.path("outputs").path("ship").path("trackingNumber").asText())
        .isEqualTo("TRK-" + order.toUpperCase(Locale.ROOT));
  }

  /** The card of {@code order} was declined, and the saga undid what it had done, naming the decline. */
  static void declinedCardCompensated(JsonNode done, String order) {
    // onFailure: Compensate undoes the completed steps in reverse order: charge was refused (failed), so only
    // reserve-stock is undone: nothing to refund
    assertThat(executions(done)).containsExactly(
        tuple("reserve-stock", "task", "reserve", "SUCCEEDED"),
        tuple("charge", "task", "pay", "FAILED"),
        tuple("reserve-stock/compensate", "task", "release", "SUCCEEDED"));
    JsonNode charge = done.path("steps").get(1);
    assertThat(charge.path("error").path("code").asText()).isEqualTo("CARD_DECLINED");
    assertThat(charge.path("error").path("reason").asText()).contains("declined", order);
    assertThat(done.path("lastError").path("errorCode").asText()).isEqualTo("CARD_DECLINED");
  }

  /** (name, kind, action, status) of every execution, oldest first. */
  private static List<Tuple> executions(JsonNode instance) {
    List<Tuple> rows = new ArrayList<>();
    for (JsonNode s : instance.path("steps")) {
      rows.add(tuple(s.path("name").asText(), s.path("kind").asText(), s.path("action").asText(),
          s.path("status").asText()));
    }
    return rows;
  }
}
