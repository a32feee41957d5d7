package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.contract.EventResult;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The plain-data parts: outcomes as a store keeps them, the in-memory store's bound, event ids. */
class CommandResultAndStoreTest {

  record Payment(String paymentId, long cents) {}

  @Test
  void outcomesSurviveARoundTripThroughJson() {
    CommandResult success = CommandResult.success(new Payment("p-1", 1234));
    assertThat(success.toJson()).isEqualTo("{\"result\":\"success\",\"output\":{\"paymentId\":\"p-1\",\"cents\":1234}}");
    assertThat(CommandResult.fromJson(success.toJson())).isEqualTo(success);

    CommandResult failed = CommandResult.failed("LIMIT", "amount over limit");
    assertThat(CommandResult.fromJson(failed.toJson())).isEqualTo(failed);
    assertThat(failed.result()).isEqualTo(EventResult.FAILED);

    assertThat(CommandResult.success().output().isEmpty()).isTrue();
    assertThat(CommandResult.success(null)).isEqualTo(CommandResult.success());
    assertThat(CommandResult.success(Map.of("a", 1)).output().get("a").asInt()).isEqualTo(1);
  }

  @Test
  void aFailureNeedsAnErrorCode() {
    assertThatThrownBy(() -> CommandResult.failed(" ", "why")).hasMessageContaining("errorCode");
    assertThatThrownBy(() -> CommandResult.fromJson("{\"result\":\"maybe\"}"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theInMemoryStoreForgetsTheLeastRecentlyUsedBeyondItsCapacity() {
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(2);
    store.remember("a", CommandResult.success());
    store.remember("b", CommandResult.failed("X", "x"));
    assertThat(store.find("a")).isPresent(); // a is now the most recent
    store.remember("c", CommandResult.success());
    assertThat(store.size()).isEqualTo(2);
    assertThat(store.find("b")).isEmpty();
    assertThat(store.find("a")).isPresent();
    // The first outcome of a key stays.
    store.remember("a", CommandResult.failed("LATE", "late"));
    assertThat(store.find("a")).contains(CommandResult.success());
    assertThatThrownBy(() -> IdempotencyStore.inMemory(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void eventIdsAreDeterministicPerCommandAndResult() {
    String id = ResultEvents.eventMessageId("m-1", EventResult.SUCCESS);
    assertThat(ResultEvents.eventMessageId("m-1", EventResult.SUCCESS)).isEqualTo(id);
    assertThat(ResultEvents.eventMessageId("m-1", EventResult.ERROR)).isNotEqualTo(id);
    assertThat(ResultEvents.eventMessageId("m-2", EventResult.SUCCESS)).isNotEqualTo(id);
    assertThat(ResultEvents.eventMessageId(null, EventResult.SUCCESS))
        .isNotEqualTo(ResultEvents.eventMessageId(null, EventResult.SUCCESS));
  }

  @Test
  void mismatchedInputIsDescribedWithoutItsValue() {
    assertThatThrownBy(() -> Bodies.convert(Bodies.MAPPER.readTree("{\"paymentId\":\"p\",\"cents\":\"4111-1111\"}"),
        Payment.class))
        .isInstanceOf(UnprocessableMessageException.class)
        .hasMessage("cannot read Payment: field cents is not a valid long");
    assertThatThrownBy(() -> Bodies.readObject("[1]".getBytes())).hasMessage("body is JSON but not an object");
    assertThatThrownBy(() -> Bodies.readObject(new byte[0])).hasMessage("body is empty");
    assertThatThrownBy(() -> Bodies.readObject("card=4111".getBytes()))
        .hasMessageStartingWith("body is not JSON").hasMessageNotContaining("4111").hasMessageNotContaining("card");
  }
}
