package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.contract.EventResult;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The event message id stays the name-based UUID the contract promises, computed without a digest lookup. */
class EventMessageIdTest {

  @Test
  void isTheSameNameBasedUuidAsTheJdks() {
    for (String command : new String[] {"c-1", UUID.randomUUID().toString(), "é"}) {
      for (EventResult result : EventResult.values()) {
        byte[] name = ("baton-event/" + command + "/" + result.key()).getBytes(StandardCharsets.UTF_8);
        assertThat(ResultEvents.eventMessageId(command, result)).isEqualTo(UUID.nameUUIDFromBytes(name).toString());
        assertThat(ResultEvents.nameUuid(name)).isEqualTo(UUID.nameUUIDFromBytes(name));
      }
    }
  }
}
