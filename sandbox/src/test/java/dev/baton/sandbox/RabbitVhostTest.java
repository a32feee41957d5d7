package dev.baton.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.http.client.Client;
import com.rabbitmq.http.client.ClientParameters;
import com.rabbitmq.http.client.domain.VhostInfo;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Closing a vhost leaves nothing behind, also when the broker takes longer to delete it than a request may. */
class RabbitVhostTest {

  /** A management API whose vhost goes only after it was asked {@code deletesNeeded} times; no request is sent. */
  private static final class SlowBroker extends Client {
    private final int deletesNeeded;
    int deletes;

    SlowBroker(int deletesNeeded) throws Exception {
      super(new ClientParameters().url("http://127.0.0.1:1/api/").username("u").password("p"));
      this.deletesNeeded = deletesNeeded;
    }

    @Override
    public void deleteVhost(String name) {
      deletes++;
      if (deletes < deletesNeeded) {
        throw new IllegalStateException("request timed out while the broker deletes 25,000 queues");
      }
    }

    @Override
    public VhostInfo getVhost(String name) {
      return deletes >= deletesNeeded ? null : new VhostInfo();
    }
  }

  @Test
  void aVhostWhoseDeletionTimesOutIsAskedAgainUntilItIsGone() throws Exception {
    SlowBroker broker = new SlowBroker(3);

    RabbitVhost.deleteWithin(broker, "bench-operator-1", Duration.ofMinutes(1), Duration.ZERO);

    assertThat(broker.deletes).isEqualTo(3);
  }

  @Test
  void aVhostThatOutlivesTheBoundFailsTheCloseByName() throws Exception {
    SlowBroker broker = new SlowBroker(Integer.MAX_VALUE);

    assertThatThrownBy(() -> RabbitVhost.deleteWithin(broker, "bench-operator-2", Duration.ZERO, Duration.ZERO))
        .hasMessageContaining("vhost bench-operator-2 is still on the broker")
        .hasMessageContaining("rabbitmqctl delete_vhost bench-operator-2")
        .hasRootCauseMessage("request timed out while the broker deletes 25,000 queues");
  }
}
