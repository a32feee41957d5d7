package dev.baton.runtime.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.topology.BindingSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultRoutesTest {

  @Test
  void everyStepAndCompensationActionWithEveryResultOnItsServicesEventExchange() {
    StepSpec reserve = new StepSpec("reserve", "stock", "reserve");
    reserve.setCompensate("release");
    StepSpec charge = new StepSpec("charge", "pay", "charge");
    charge.setAction("debit"); // the action, not the command, keys the results
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity("order");
    spec.setSteps(new ArrayList<>(List.of(reserve, charge)));

    assertThat(ResultRoutes.of("fulfil", spec)).extracting(BindingSpec::exchange, BindingSpec::routingKey)
        .containsExactly(
            tuple("stock.event.topic.ex", "order.reserve.success"),
            tuple("stock.event.topic.ex", "order.reserve.failed"),
            tuple("stock.event.topic.ex", "order.reserve.error"),
            tuple("stock.event.topic.ex", "order.reserve.expired"),
            tuple("stock.event.topic.ex", "order.release.success"),
            tuple("stock.event.topic.ex", "order.release.failed"),
            tuple("stock.event.topic.ex", "order.release.error"),
            tuple("stock.event.topic.ex", "order.release.expired"),
            tuple("pay.event.topic.ex", "order.debit.success"),
            tuple("pay.event.topic.ex", "order.debit.failed"),
            tuple("pay.event.topic.ex", "order.debit.error"),
            tuple("pay.event.topic.ex", "order.debit.expired"));
    assertThat(ResultRoutes.of("fulfil", spec)).allMatch(b -> b.queue().equals("q.orchestrator.fulfil"));
  }

  @Test
  void tasksInsideParallelBranchesAndChoicesAreRoutedToo() throws Exception {
    WorkflowSpec spec = new ObjectMapper(new YAMLFactory()).readValue("""
        entity: order
        steps: [{name: checks, parallel: [
            {steps: [{name: fraud, service: risk, command: score}]},
            {steps: [{name: authorize, service: payment, command: authorize, compensate: void}]}]},
         {name: route, choice: [{when: 'true', steps: [{name: approval, wait: {signal: approve}}]}],
          otherwise: [{name: notify, service: mail, command: send}]}]
        """, WorkflowSpec.class);

    assertThat(ResultRoutes.of("approve", spec)).extracting(BindingSpec::routingKey).containsExactly(
        "order.score.success", "order.score.failed", "order.score.error", "order.score.expired",
        "order.authorize.success", "order.authorize.failed", "order.authorize.error", "order.authorize.expired",
        "order.void.success", "order.void.failed", "order.void.error", "order.void.expired",
        "order.send.success", "order.send.failed", "order.send.error", "order.send.expired");
  }
}
