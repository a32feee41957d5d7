package dev.baton.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Address;
import java.util.List;
import org.junit.jupiter.api.Test;

class BrokerAddressesTest {

  @Test
  void hostsWithOptionalPortsInOrder() {
    assertThat(BrokerAddresses.parse(List.of("rabbit-0:5673", " rabbit-1", "", "10.0.0.3:5674"), 5672))
        .containsExactly(new Address("rabbit-0", 5673), new Address("rabbit-1", 5672), new Address("10.0.0.3", 5674));
    assertThat(BrokerAddresses.describe(BrokerAddresses.parse(List.of("a:1", "b:2"), 5672))).isEqualTo("a:1,b:2");
  }

  @Test
  void anythingElseIsRefusedByName() {
    for (String bad : new String[] {"host:", "host:0", "host:70000", "host:x", "amqp://h:5672", ":5672"}) {
      assertThatThrownBy(() -> BrokerAddresses.parse(List.of(bad), 5672)).as(bad)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not host:port");
    }
    assertThatThrownBy(() -> BrokerAddresses.parse(List.of("u:s3cret@h:5672"), 5672))
        .hasMessageContaining("holds credentials").message().doesNotContain("s3cret");
  }
}
