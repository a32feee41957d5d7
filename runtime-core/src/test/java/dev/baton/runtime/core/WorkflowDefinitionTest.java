package dev.baton.runtime.core;

import static dev.baton.runtime.core.StateMachineTest.SAGA;
import static dev.baton.runtime.core.StateMachineTest.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.workflow.Step;
import dev.baton.workflow.WorkflowParser;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkflowDefinitionTest {

  @Test
  void definitionsResolveDefaults() {
    Step.Task charge = (Step.Task) SAGA.step("charge").orElseThrow();
    assertThat(charge.action()).isEqualTo("pay");
    assertThat(charge.compensate()).isEqualTo("refund");
    assertThat(charge.timeout()).hasMinutes(1);
    Step.Task reserve = (Step.Task) SAGA.step("reserve").orElseThrow();
    assertThat(((Step.Task) SAGA.step("ship").orElseThrow()).timeout()).isNull();
    assertThat(reserve.onTimeout()).isEqualTo(OnTimeout.Fail);
    assertThat(reserve.maxDispatches()).isEqualTo(1);
  }

  @Test
  void definitionsRefuseSpecsTheTranslatorRefuses() {
    WorkflowSpec noSteps = new WorkflowSpec();
    noSteps.setEntity("order");
    assertThatThrownBy(() -> WorkflowParser.runnable("ns", "w", 1, noSteps)).hasMessageContaining("steps is empty");

    WorkflowSpec badTimeout = new WorkflowSpec();
    badTimeout.setEntity("order");
    badTimeout.setSteps(List.of(step("a", "a", null, "soon")));
    assertThatThrownBy(() -> WorkflowParser.runnable("ns", "w", 1, badTimeout))
        .hasMessageContaining("spec.steps[0].timeout");

    WorkflowSpec duplicate = new WorkflowSpec();
    duplicate.setEntity("order");
    duplicate.setSteps(List.of(step("a", "a", null, null), step("a", "b", null, null)));
    assertThatThrownBy(() -> WorkflowParser.runnable("ns", "w", 1, duplicate))
        .hasMessageContaining("step name 'a' is already used by spec.steps[0]");
  }

  @Test
  void everyKindOfStepLoads() {
    assertThat(StateMachineTest.TREE.allSteps()).extracting(s -> s.kind().wireName())
        .contains("task", "parallel", "choice", "wait", "delay");
    assertThat(StateMachineTest.NEST.parentOf("big")).contains("pick");
  }
}
