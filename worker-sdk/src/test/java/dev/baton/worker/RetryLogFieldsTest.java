package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import dev.baton.contract.Headers;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ConsumerTopology;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.MDC;

/**
 * The retry and dead-letter lines are written on the consumer's thread, outside the handler's log fields: they carry
 * the instance's fields from the command's headers all the same (docs/message-contract.md).
 */
class RetryLogFieldsTest {

  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

  @RegisterExtension
  final CapturedLines lines = new CapturedLines("dev.baton.worker");

  @Test
  void a_retry_and_a_dead_letter_name_the_instance_its_workflow_step_and_trace() {
    ConsumerTopology consumer = new ConsumerTopology(ConsumerTopology.Kind.COMMAND, "reserve", "q.inventory.reserve",
        "inventory.reserve", RetryStaircase.of(2, List.of("1s")), List.of("q.retry.inventory.reserve.1s"),
        "q.dlx.inventory.reserve");
    RetryRouter router = new RetryRouter("inventory", consumer, WorkerListener.NONE);
    InboundMessage message = new InboundMessage("x.inventory", "inventory.reserve", false,
        new AMQP.BasicProperties.Builder().messageId("m-1").headers(Map.of(
            Headers.INSTANCE, "0b6f5f0e-0000-4000-8000-000000000001", Headers.WORKFLOW, "order-fulfilment",
            Headers.STEP, "reserve-stock", Headers.TRACEPARENT, "00-" + TRACE + "-00f067aa0ba902b7-01")).build(),
        "{}".getBytes());

    router.onFailure(message, 0, new IllegalStateException("down"), r -> null);
    router.onFailure(message, 1, new IllegalStateException("still down"), r -> null);

    assertThat(lines.list()).filteredOn(e -> e.getFormattedMessage().contains("retry 1 of 1")
            || e.getFormattedMessage().startsWith("dead letter:")).hasSize(2)
        .allSatisfy(e -> assertThat(e.getMDCPropertyMap())
            .containsEntry("instanceId", "0b6f5f0e-0000-4000-8000-000000000001")
            .containsEntry("workflow", "order-fulfilment").containsEntry("step", "reserve-stock")
            .containsEntry("traceId", TRACE));
    assertThat(MDC.getCopyOfContextMap()).as("restored after").satisfiesAnyOf(
        m -> assertThat(m).isNull(), m -> assertThat(m).isEmpty());
  }
}
