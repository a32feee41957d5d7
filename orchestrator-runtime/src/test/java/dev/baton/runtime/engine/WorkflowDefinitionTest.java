package dev.baton.runtime.engine;

import static dev.baton.runtime.engine.StateMachineTest.SAGA;
import static dev.baton.runtime.engine.StateMachineTest.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.definitions.DefinitionCatalog;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkflowDefinitionTest {

  @Test
  void definitionsResolveDefaults() {
    StepDefinition charge = SAGA.step(2);
    assertThat(charge.actionFor(Phase.FORWARD)).isEqualTo("pay");
    assertThat(charge.actionFor(Phase.COMPENSATION)).isEqualTo("refund");
    assertThat(charge.timeout()).hasMinutes(1);
    assertThat(SAGA.step(3).timeout()).isNull();
    assertThat(SAGA.step(0).onTimeout()).isEqualTo(OnTimeout.Fail);
    assertThat(SAGA.step(0).maxDispatches()).isEqualTo(1);
  }

  @Test
  void definitionsRefuseSpecsTheTranslatorRefuses() {
    WorkflowSpec noSteps = new WorkflowSpec();
    noSteps.setEntity("order");
    assertThatThrownBy(() -> DefinitionCatalog.runnable("ns", "w", 1, noSteps)).hasMessageContaining("steps is empty");

    WorkflowSpec badTimeout = new WorkflowSpec();
    badTimeout.setEntity("order");
    badTimeout.setSteps(List.of(step("a", "a", null, "soon")));
    assertThatThrownBy(() -> DefinitionCatalog.runnable("ns", "w", 1, badTimeout))
        .hasMessageContaining("spec.steps[0].timeout");

    WorkflowSpec duplicate = new WorkflowSpec();
    duplicate.setEntity("order");
    duplicate.setSteps(List.of(step("a", "a", null, null), step("a", "b", null, null)));
    assertThatThrownBy(() -> DefinitionCatalog.runnable("ns", "w", 1, duplicate))
        .hasMessageContaining("step name 'a' is already used by spec.steps[0]");
  }

  @Test
  void definitionsWithStepsThisRuntimeCannotRunYetAreRefusedNamingTheStep() {
    WorkflowSpec delayed = new WorkflowSpec();
    delayed.setEntity("order");
    StepSpec pause = new StepSpec();
    pause.setName("pause");
    pause.setDelay("2s");
    delayed.setSteps(List.of(step("a", "a", null, null), pause));
    assertThatThrownBy(() -> DefinitionCatalog.runnable("ns", "w", 1, delayed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("step 'pause' is a delay step, which this runtime cannot run yet: it runs task steps only");

    WorkflowSpec mapped = new WorkflowSpec();
    mapped.setEntity("order");
    StepSpec ship = step("ship", "ship", null, null);
    ship.setInput(java.util.Map.of("address", "input.address"));
    mapped.setSteps(List.of(ship));
    assertThatThrownBy(() -> DefinitionCatalog.runnable("ns", "w", 1, mapped))
        .hasMessageContaining("step 'ship' maps its input");
  }
}
