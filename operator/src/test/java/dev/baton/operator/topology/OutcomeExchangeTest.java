package dev.baton.operator.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.operator.broker.FakeBrokerClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OutcomeExchangeTest {

  final FakeBrokerClient broker = new FakeBrokerClient();
  final OutcomeExchange exchange = new OutcomeExchange(broker.snapshot(), Duration.ofSeconds(60));

  @Test
  void theOutcomeExchangeIsDeclaredOnceAsADurableTopicAndThenLeftAlone() {
    assertThat(exchange.ensure()).containsExactly("declared exchange baton.instance.topic.ex");
    assertThat(broker.exchanges).containsEntry("baton.instance.topic.ex", "topic");

    broker.writes.clear();
    assertThat(exchange.ensure()).isEmpty();
    assertThat(broker.writes).isEmpty();
  }

  @Test
  void aDeletedOutcomeExchangeComesBack() {
    exchange.ensure();
    broker.exchanges.remove("baton.instance.topic.ex"); // behind the operator's back; the next listing shows it

    assertThat(exchange.ensure()).containsExactly("declared exchange baton.instance.topic.ex");
  }

  @Test
  void anExchangeOfThatNameOfAnotherTypeIsLeftAlone() {
    broker.exchanges.put("baton.instance.topic.ex", "direct");

    assertThat(exchange.ensure()).isEmpty();
    assertThat(broker.exchanges).containsEntry("baton.instance.topic.ex", "direct");
  }
}
