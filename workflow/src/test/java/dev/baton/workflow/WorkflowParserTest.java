package dev.baton.workflow;

import static dev.baton.workflow.Specs.steps;
import static dev.baton.workflow.Specs.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.api.validation.ProblemKind;
import dev.baton.api.validation.Validated;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WorkflowParserTest {

  static final String APPROVAL = """
      [{name: reserve, service: inventory, command: reserve, compensate: release, timeout: 30s},
       {name: checks, parallel: [
           {steps: [{name: fraud, service: risk, command: score, timeout: 10s}]},
           {steps: [{name: authorize, service: payment, command: authorize, compensate: void}]}]},
       {name: route, choice: [
           {when: "steps.fraud.output.score > 80 || input.amount > 1000",
            steps: [{name: approval, wait: {signal: approve, timeout: 24h}}]}],
        otherwise: []},
       {name: cool-off, delay: 2s},
       {name: ship, service: shipping, command: ship,
        input: {address: "input.address", approvedBy: "has(steps.approval) ? steps.approval.output.by : 'auto'"}}]
      """;

  @Test
  void aLinearWorkflowBecomesTasksWithTheDefaultsApplied() {
    WorkflowDefinition d = valid(steps("[{name: a, service: s, command: c},"
        + " {name: b, service: s, command: d, action: charged, onTimeout: Redispatch, timeout: 1m},"
        + " {name: c, service: s, command: e, onTimeout: Redispatch, maxDispatches: 5, compensate: undo}]"));

    assertThat(d.onFailure()).isEqualTo(OnFailure.Compensate);
    assertThat(d.entity()).isEqualTo("order");
    assertThat(d.isLinear()).isTrue();
    assertThat(d.tasks()).containsExactly(
        new Step.Task("a", "s", "c", "c", null, null, OnTimeout.Fail, 1, Map.of()),
        new Step.Task("b", "s", "d", "charged", null, Duration.ofMinutes(1), OnTimeout.Redispatch, 3, Map.of()),
        new Step.Task("c", "s", "e", "e", "undo", null, OnTimeout.Redispatch, 5, Map.of()));
    assertThat(d.tasks().get(2).isCompensable()).isTrue();
  }

  @Test
  void aScheduleThatCannotFireMakesTheWorkflowInvalid() {
    Validated<WorkflowDefinition> v = WorkflowParser.parse("shop", "orders", 1, Specs.spec(
        "{entity: order, schedules: [{name: nightly, cron: '0 25 * * *'}], steps: [{name: a, service: s, command: c}]}"));

    assertThat(v.isValid()).isFalse();
    assertThat(v.message()).contains("spec.schedules[0].cron (schedule 'nightly'): '0 25 * * *' is not a Unix cron");
  }

  @Test
  void aWorkflowWithAValueOfANewerCrdIsNotRunTheFieldAndTheValueSaid() {
    // As Baton's clients read it: onTimeout unknown, read as unset, and noted.
    WorkflowSpec spec = dev.baton.api.client.TolerantSerialization.shared().unmarshal(
        """
        {"entity": "order", "steps": [{"name": "a", "service": "s", "command": "c", "onTimeout": "Escalate"}]}
        """, WorkflowSpec.class);

    Validated<WorkflowDefinition> v = WorkflowParser.parse("shop", "orders", 1, spec);

    assertThat(v.isValid()).as("a default standing in would run what was not written").isFalse();
    assertThat(v.message()).contains("spec.steps[0].onTimeout: 'Escalate' is not a value this version of Baton "
        + "knows (Fail, Redispatch)");
    assertThatThrownBy(() -> WorkflowParser.runnable("shop", "orders", 1, spec)).as("what the runtime asks")
        .hasMessageContaining("'Escalate'");
  }

  @Test
  void maxDispatchesCountsOnlyWithRedispatch() {
    WorkflowDefinition d = valid(steps("[{name: a, service: s, command: c, maxDispatches: 7}]"));
    assertThat(d.tasks().get(0).maxDispatches()).isEqualTo(1);
  }

  @Test
  void theApprovalExampleBecomesOneStepOfEachKind() {
    WorkflowDefinition d = valid(steps(APPROVAL));

    assertThat(d.steps()).extracting(Step::kind).containsExactly(StepKind.TASK, StepKind.PARALLEL, StepKind.CHOICE,
        StepKind.DELAY, StepKind.TASK);
    assertThat(d.isLinear()).isFalse();
    assertThat(d.allSteps()).extracting(Step::name)
        .containsExactly("reserve", "checks", "fraud", "authorize", "route", "approval", "cool-off", "ship");
    assertThat(d.tasks()).extracting(Step.Task::name).containsExactly("reserve", "fraud", "authorize", "ship");

    Step.Parallel checks = (Step.Parallel) d.step("checks").orElseThrow();
    assertThat(checks.branches()).hasSize(2);
    assertThat(checks.branches().get(1)).extracting(Step::name).containsExactly("authorize");

    Step.Choice route = (Step.Choice) d.step("route").orElseThrow();
    assertThat(route.cases()).singleElement().satisfies(c -> {
      assertThat(c.when().text()).isEqualTo("steps.fraud.output.score > 80 || input.amount > 1000");
      assertThat(c.steps()).containsExactly(new Step.Wait("approval", "approve", Duration.ofHours(24)));
    });
    assertThat(route.otherwise()).isEmpty();

    assertThat(d.step("cool-off")).contains(new Step.Delay("cool-off", Duration.ofSeconds(2)));
    Step.Task ship = (Step.Task) d.step("ship").orElseThrow();
    assertThat(ship.hasMappedInput()).isTrue();
    assertThat(ship.input()).containsOnlyKeys("address", "approvedBy");
  }

  @Test
  void aMapKeepsItsItemsItsLimitsAndItsStepsWhoseExpressionsReadItemAndIndex() {
    WorkflowDefinition d = valid(steps("[{name: ship-items, map: {items: 'input.items', maxConcurrency: 10,"
        + " toleratedFailures: 2, steps: [{name: ship-one, service: s, command: ship,"
        + " input: {sku: 'item.sku', at: 'index', first: 'index == 0'}}]}}]"));

    Step.Map map = (Step.Map) d.step("ship-items").orElseThrow();
    assertThat(map.items().text()).isEqualTo("input.items");
    assertThat(map.maxConcurrency()).isEqualTo(10);
    assertThat(map.toleratedFailures()).isEqualTo(2);
    assertThat(map.last().name()).isEqualTo("ship-one");
    assertThat(d.parentOf("ship-one")).contains("ship-items");
    assertThat(map.kind().isGroup()).isTrue();
  }

  @Test
  void aChildWorkflowStepKeepsItsWorkflowItsInputAndItsTimeoutAndIsListedAsAChild() {
    WorkflowDefinition d = valid(steps("[{name: invoice, workflow: invoicing, input: {order: 'input.id'},"
        + " timeout: 1h}, {name: each, map: {items: 'input.items', steps: [{name: audit, workflow: auditing,"
        + " input: {line: 'item', at: 'index'}}]}}]"));

    Step.Child invoice = (Step.Child) d.step("invoice").orElseThrow();
    assertThat(invoice.workflow()).isEqualTo("invoicing");
    assertThat(invoice.input().get("order").text()).isEqualTo("input.id");
    assertThat(invoice.timeout()).isEqualTo(Duration.ofHours(1));
    assertThat(invoice.kind()).isEqualTo(StepKind.WORKFLOW);
    assertThat(d.childWorkflows()).containsExactly("invoicing", "auditing");
  }

  @Test
  void parentOfNamesTheEnclosingGroupAndIsEmptyAtTheTopLevel() {
    WorkflowDefinition d = valid(steps(APPROVAL));

    assertThat(d.parentOf("fraud")).contains("checks");
    assertThat(d.parentOf("authorize")).contains("checks");
    assertThat(d.parentOf("approval")).contains("route");
    assertThat(d.parentOf("checks")).isEmpty();
    assertThat(d.parentOf("ship")).isEmpty();
    assertThat(d.step("nothing")).isEmpty();
  }

  @Test
  void stepsNestThreeLevelsDeep() {
    WorkflowDefinition d = valid(steps("""
        [{name: outer, parallel: [
            {steps: [{name: inner, choice: [{when: "true", steps: [{name: deepest, delay: 1s}]}],
                      otherwise: [{name: other, service: s, command: c}]}]},
            {steps: [{name: side, wait: {signal: go}}]}]}]
        """));
    assertThat(d.parentOf("deepest")).contains("inner");
    assertThat(d.parentOf("other")).contains("inner");
    assertThat(d.parentOf("inner")).contains("outer");
    assertThat(d.step("side")).contains(new Step.Wait("side", "go", null));
  }

  @Test
  void stepKindsAreWrittenInLowerCaseInJson() throws Exception {
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    assertThat(json.writeValueAsString(StepKind.PARALLEL)).isEqualTo("\"parallel\"");
    assertThat(json.readValue("\"wait\"", StepKind.class)).isEqualTo(StepKind.WAIT);
  }

  @Test
  void onFailureStopIsKept() {
    assertThat(valid(Specs.spec("{entity: order, onFailure: Stop, steps: [{name: a, service: s, command: c}]}"))
        .onFailure()).isEqualTo(OnFailure.Stop);
  }

  @Test
  void theInstanceTimeoutIsADurationAndNoneByDefault() {
    assertThat(valid(Specs.spec("{entity: order, timeout: 1h30m, steps: [{name: a, service: s, command: c}]}"))
        .timeout()).isEqualTo(Duration.ofMinutes(90));
    assertThat(valid(steps("[{name: a, service: s, command: c}]")).timeout()).isNull();
  }

  @Test
  void aBadInstanceTimeoutIsAProblemNamingTheField() {
    assertThat(WorkflowParser.parse("shop", "w", 1,
        Specs.spec("{entity: order, timeout: 2 hours, steps: [{name: a, delay: 1s}]}")).message())
        .contains("spec.timeout: '2 hours' is not a duration");
    assertThat(WorkflowParser.parse("shop", "w", 1,
        Specs.spec("{entity: order, timeout: 0s, steps: [{name: a, delay: 1s}]}")).message())
        .contains("spec.timeout: '0s' is zero");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiterString = " :: ", quoteCharacter = '`', textBlock = """
      no steps :: [] :: spec.steps is empty
      no kind :: [{name: a}] :: spec.steps[0] (step 'a') has no kind
      two kinds :: [{name: a, service: s, command: c, delay: 1s}] :: spec.steps[0] (step 'a') has the fields of 2 kinds (task, delay)
      a task without command :: [{name: a, service: s}] :: spec.steps[0].command (step 'a') is missing
      a task without service :: [{name: a, command: c}] :: spec.steps[0].service (step 'a') is missing
      a task field on a wait :: [{name: a, wait: {signal: go}, timeout: 5s}] :: spec.steps[0].timeout (step 'a') belongs to a task, and this step is a wait (a wait's timeout is wait.timeout)
      input on a delay :: [{name: a, delay: 1s, input: {x: 'input.x'}}] :: spec.steps[0].input (step 'a') belongs to a task, and this step is a delay
      otherwise without choice :: [{name: a, service: s, command: c, otherwise: []}] :: spec.steps[0].otherwise (step 'a') belongs to a choice, and this step is a task
      duplicate at the top level :: [{name: a, service: s, command: c}, {name: a, delay: 1s}] :: spec.steps[1].name (step 'a'): step name 'a' is already used by spec.steps[0]:
      duplicate inside a branch :: [{name: a, service: s, command: c}, {name: p, parallel: [{steps: [{name: x, delay: 1s}]}, {steps: [{name: a, delay: 1s}]}]}] :: spec.steps[1].parallel[1].steps[0].name (step 'a'): step name 'a' is already used by spec.steps[0]:
      duplicate inside otherwise :: [{name: c, choice: [{when: 'true', steps: [{name: x, delay: 1s}]}], otherwise: [{name: x, delay: 2s}]}] :: spec.steps[0].otherwise[0].name (step 'x'): step name 'x' is already used by spec.steps[0].choice[0].steps[0]:
      a group at the fourth level :: [{name: p, parallel: [{steps: [{name: q, parallel: [{steps: [{name: r, choice: [{when: 'true', steps: []}]}]}, {steps: [{name: s, delay: 1s}]}]}]}, {steps: [{name: t, delay: 1s}]}]}] :: spec.steps[0].parallel[0].steps[0].parallel[0].steps[0] (step 'r'): a choice at nesting level 3; steps nest at most 3 levels deep
      bad timeout :: [{name: a, service: s, command: c, timeout: 5 minutes}] :: spec.steps[0].timeout (step 'a'): '5 minutes' is not a duration
      bad delay :: [{name: a, delay: soon}] :: spec.steps[0].delay (step 'a'): 'soon' is not a duration
      zero delay :: [{name: a, delay: 0s}] :: spec.steps[0].delay (step 'a'): '0s' is zero
      bad wait timeout :: [{name: a, wait: {signal: go, timeout: 1d}}] :: spec.steps[0].wait.timeout (step 'a'): '1d' is not a duration
      a wait without signal :: [{name: a, wait: {timeout: 1h}}] :: spec.steps[0].wait.signal (step 'a') is missing
      a parallel of one branch :: [{name: p, parallel: [{steps: [{name: a, delay: 1s}]}]}] :: spec.steps[0].parallel (step 'p') has 1 branch: a parallel step needs at least 2
      an empty branch :: [{name: p, parallel: [{steps: [{name: a, delay: 1s}]}, {steps: []}]}] :: spec.steps[0].parallel[1].steps (step 'p') is empty
      a choice without cases :: [{name: c, choice: []}] :: spec.steps[0].choice (step 'c') is empty
      a case without when :: [{name: c, choice: [{steps: []}]}] :: spec.steps[0].choice[0].when (step 'c') is missing
      CEL that does not parse :: [{name: c, choice: [{when: 'input.amount >', steps: []}]}] :: spec.steps[0].choice[0].when (step 'c'): the CEL expression does not compile: <input>:1:15: mismatched input '<EOF>'
      a when that is no bool :: [{name: c, choice: [{when: 'input.amount + 1', steps: []}]}] :: spec.steps[0].choice[0].when (step 'c'): the CEL expression does not compile
      an undeclared variable :: [{name: a, service: s, command: c, input: {x: 'order.id'}}] :: spec.steps[0].input.x (step 'a'): the CEL expression does not compile: <input>:1:1: undeclared reference to 'order'
      an unknown step read :: [{name: a, service: s, command: c, input: {x: 'steps.nope.output'}}] :: spec.steps[0].input.x (step 'a'): 'steps.nope.output' reads steps.nope, but the Workflow has no step 'nope'
      an unknown step read by index :: [{name: c, choice: [{when: "steps['gone'].status == 'SUCCEEDED'", steps: []}]}] :: spec.steps[0].choice[0].when (step 'c'): 'steps['gone'].status == 'SUCCEEDED'' reads steps.gone, but the Workflow has no step 'gone'
      maxDispatches over the bound :: [{name: a, service: s, command: c, onTimeout: Redispatch, maxDispatches: 101}] :: spec.steps[0].maxDispatches (step 'a') is 101: it must be between 1 and 100
      a dotted service :: [{name: a, service: pay.ment, command: c}] :: spec.steps[0].service (step 'a'): 'pay.ment' is not a valid name
      a dotted step name :: [{name: a.b, delay: 1s}] :: spec.steps[0].name (step 'a.b'): 'a.b' is not a valid step name
      a step without a name :: [{delay: 1s}] :: spec.steps[0].name is missing
      an unknown step read inside a branch names the task :: [{name: p, parallel: [{steps: [{name: x, delay: 1s}]}, {steps: [{name: t, service: s, command: c, input: {y: 'steps.gone.output'}}]}]}] :: spec.steps[0].parallel[1].steps[0].input.y (step 't'): 'steps.gone.output' reads steps.gone
      map items that are known not to be a list :: [{name: m, map: {items: "'abc'", steps: [{name: a, delay: 1s}]}}] :: spec.steps[0].map.items (step 'm'): the CEL expression does not compile: it yields string, not a list
      map without items :: [{name: m, map: {steps: [{name: a, delay: 1s}]}}] :: spec.steps[0].map.items (step 'm') is missing
      map without steps :: [{name: m, map: {items: 'input.items', steps: []}}] :: spec.steps[0].map.steps (step 'm') is empty
      a map inside a map :: [{name: m, map: {items: 'input.items', steps: [{name: n, map: {items: 'item.lines', steps: [{name: a, delay: 1s}]}}]}}] :: spec.steps[0].map.steps[0] (step 'n'): a map inside the map 'm'; maps do not nest
      item outside a map :: [{name: a, service: s, command: c, input: {x: 'item'}}] :: spec.steps[0].input.x (step 'a'): the CEL expression does not compile: <input>:1:1: undeclared reference to 'item'
      a step inside a map read from outside :: [{name: m, map: {items: 'input.items', steps: [{name: one, service: s, command: c}]}}, {name: b, service: s, command: c, input: {x: 'steps.one.output'}}] :: spec.steps[1].input.x (step 'b'): 'steps.one.output' reads steps.one, which runs once per item of the map 'm': read the map's output, steps['m'].output
      maxConcurrency below zero :: [{name: m, map: {items: 'input.items', maxConcurrency: -1, steps: [{name: a, delay: 1s}]}}] :: spec.steps[0].map.maxConcurrency (step 'm') is -1: it must be between 0 and 10000
      a child with a compensate :: [{name: c, workflow: invoicing, compensate: undo}] :: spec.steps[0].compensate (step 'c') belongs to a task, and this step is a workflow
      a child with a dotted workflow :: [{name: c, workflow: in.voicing}] :: spec.steps[0].workflow (step 'c'): 'in.voicing' is not a Workflow name
      a child and a task at once :: [{name: c, workflow: invoicing, service: s, command: c}] :: spec.steps[0] (step 'c') has the fields of 2 kinds (task, workflow)
      a child with a bad timeout :: [{name: c, workflow: invoicing, timeout: soon}] :: spec.steps[0].timeout (step 'c'): 'soon' is not a duration
      a bad when inside a case names its own choice, not the outer one :: [{name: outer, choice: [{when: 'true', steps: [{name: inner, choice: [{when: 'input.x >', steps: []}]}]}]}] :: spec.steps[0].choice[0].steps[0].choice[0].when (step 'inner'): the CEL expression does not compile
      """)
  void badSpecsBecomeProblemsNamingTheStepAndTheField(String what, String steps, String message) {
    Validated<WorkflowDefinition> v = WorkflowParser.parse("shop", "orders", 1, Specs.steps(steps));
    assertThat(v.isValid()).as(what).isFalse();
    assertThat(v.kind()).contains(ProblemKind.INVALID_SPEC);
    assertThat(v.message()).as(what).contains(message);
  }

  @Test
  void aDottedEntityAndAMissingSpecAreProblems() {
    assertThat(WorkflowParser.parse("shop", "w", 1,
        Specs.spec("{entity: order.v2, steps: [{name: a, delay: 1s}]}")).message())
        .contains("spec.entity 'order.v2' is not a valid entity");
    assertThat(WorkflowParser.parse("shop", "w", 1, null).message()).contains("spec is missing");
  }

  @Test
  void aNameTooLongForItsQueueIsAProblem() {
    assertThat(WorkflowParser.parse("shop", "w".repeat(240), 1, steps("[{name: a, delay: 1s}]")).message())
        .contains("metadata.name is too long");
  }

  @Test
  void stepsOverTheBoundsAreProblems() {
    String many = IntStream.range(0, 21).mapToObj(i -> "{name: s" + i + ", delay: 1s}")
        .collect(Collectors.joining(", ", "[", "]"));
    Validated<WorkflowDefinition> v = WorkflowParser.parse("shop", "w", 1,
        steps("[{name: p, parallel: [{steps: " + many + "}, {steps: [{name: x, delay: 1s}]}]}]"));
    assertThat(v.message()).contains("spec.steps[0].parallel[0].steps (step 'p') has 21 steps; at most 20 are allowed");

    String branches = IntStream.range(0, 11).mapToObj(i -> "{steps: [{name: b" + i + ", delay: 1s}]}")
        .collect(Collectors.joining(", ", "[", "]"));
    assertThat(WorkflowParser.parse("shop", "w", 1, steps("[{name: p, parallel: " + branches + "}]")).message())
        .contains("spec.steps[0].parallel (step 'p') has 11 branches; at most 10 are allowed");

    String expression = "input.x == '" + "x".repeat(1020) + "'";
    assertThat(WorkflowParser.parse("shop", "w", 1,
        steps("[{name: c, choice: [{when: \"" + expression + "\", steps: []}]}]")).message())
        .contains("at most 1024 are allowed");
  }

  @Test
  void everyProblemIsReportedNotOnlyTheFirst() {
    Validated<WorkflowDefinition> v = WorkflowParser.parse("shop", "w", 1,
        steps("[{name: a, delay: soon}, {name: b, wait: {signal: go, timeout: never}}]"));
    assertThat(v.problems()).extracting(p -> p.message()).satisfiesExactly(
        a -> assertThat(a).startsWith("spec.steps[0].delay (step 'a'): "),
        b -> assertThat(b).startsWith("spec.steps[1].wait.timeout (step 'b'): "));
  }

  @Test
  void everyProblemOfANamedStepNamesIt() {
    // two steps at the second level with many problems each
    Validated<WorkflowDefinition> v = WorkflowParser.parse("shop", "w", 1, steps("""
        [{name: outer, parallel: [
          {steps: [{name: t, service: pay.ment, command: c.d, action: a.b, compensate: x.y, timeout: soon,
                    onTimeout: Redispatch, maxDispatches: 0, input: {k: 'nope', j: 'steps.gone'}}]},
          {steps: [{name: w, wait: {signal: s.t, timeout: never}, input: {x: 'input'}, otherwise: []}]}]}]
        """));
    assertThat(v.problems()).hasSize(12).allSatisfy(p -> assertThat(p.message())
        .matches("(?s)spec\\.steps\\[0]\\.parallel\\[[01]]\\.steps\\[0]\\.[a-zA-Z.]+ \\(step '[tw]'\\)[ :].*"));
  }

  @Test
  void theSameSpecTranslatesToEqualDefinitionsSoCachesCanCompareThem() {
    assertThat(valid(steps(APPROVAL))).isEqualTo(valid(steps(APPROVAL)));
    assertThat(List.of(valid(steps(APPROVAL)).tasks())).isEqualTo(List.of(valid(steps(APPROVAL)).tasks()));
  }
}
