package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A command that would be too large (the outputs it carries grew) is never sent: its step fails with reason
 * PayloadTooLarge at once, instead of a command the broker refuses again and again while the instance waits.
 */
class CommandTooLargeIT {

  static RuntimeHarness h;
  static final AtomicInteger shipped = new AtomicInteger();

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("too-large");
    h.startRuntime(h.settings().toBuilder().maxCommandBytes(2_000).build());
    h.apply("growing", spec("order",
        step("describe", "tl-catalog", "describe", null),
        step("ship", "tl-shipping", "ship", null)));
    h.worker()
        .serve("q.tl-catalog.describe", "tl-catalog", "describe", c -> Reply.success(RuntimeHarness.JSON
            .createObjectNode().put("description", c.body().path("input").path("big").asBoolean()
                ? "x".repeat(5_000) : "a mug")))
        .serve("q.tl-shipping.ship", "tl-shipping", "ship", c -> {
          shipped.incrementAndGet();
          return Reply.success(RuntimeHarness.JSON.createObjectNode());
        });
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void the_step_whose_command_would_be_too_large_fails_with_the_reason_and_nothing_is_sent() throws Exception {
    UUID small = h.startOk("growing", "small-1");
    h.awaitStatus(small, "SUCCEEDED", Duration.ofSeconds(30));
    int shippedBefore = shipped.get();

    UUID big = UUID.fromString(h.start("growing", "big-1", "{\"big\": true}").json().get("id").asText());
    JsonNode failed = h.awaitStatus(big, "FAILED", Duration.ofSeconds(30));

    assertThat(failed.get("lastError").get("step").asText()).isEqualTo("ship");
    assertThat(failed.get("lastError").get("errorCode").asText()).isEqualTo("PayloadTooLarge");
    assertThat(failed.get("lastError").get("reason").asText()).contains("over the limit of 2000");
    assertThat(shipped.get()).isEqualTo(shippedBefore);
    assertThat(h.count("SELECT count(*) FROM outbox WHERE instance_id = '" + big + "'")).isZero();
  }
}
