package dev.baton.runtime.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.EventResult;
import dev.baton.workflow.WorkflowDefinition;
import dev.baton.workflow.WorkflowParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The transitions of a map step, driven the way the runtime drives an instance: each decision's rows are written back
 * (new rows get ids, ended rows replace theirs) and the next stimulus is decided on what was written.
 *
 * <p>SHIP: prepare; ship-items = map over input.items, two at a time, one failure tolerated, of ship-one (compensate:
 * unship, input {item, index}); notify. CHECKED: a map without limits whose iteration is check-one, then a choice
 * on check-one's output inside the iteration (seen under its own name), then record-one without a mapping.
 */
class MapTransitionsTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static final WorkflowDefinition SHIP = yaml("ship", """
      {entity: order, timeout: 1h, steps: [
        {name: prepare, service: s, command: prepare},
        {name: ship-items, map: {items: "input.items", maxConcurrency: 2, toleratedFailures: 1, steps: [
          {name: ship-one, service: ship, command: ship, compensate: unship, timeout: 30s,
           input: {item: "item", index: "index"}}]}},
        {name: notify, service: s, command: notify}]}
      """);
  static final WorkflowDefinition CHECKED = yaml("checked", """
      {entity: order, steps: [
        {name: check-all, map: {items: "input.items", steps: [
          {name: check-one, service: s, command: check},
          {name: verdict, choice: [{when: "steps['check-one'].output.ok && item > 1", steps: []}],
           otherwise: []},
          {name: record-one, service: s, command: record}]}}]}
      """);

  static WorkflowDefinition yaml(String name, String spec) {
    try {
      return WorkflowParser.runnable("default", name, 1, YAML.readValue(spec, WorkflowSpec.class));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static SimulatedInstance shipping(String items) {
    SimulatedInstance i = new SimulatedInstance(SHIP, "{\"items\": " + items + "}");
    i.succeed("prepare", "prepare");
    return i;
  }

  @Test
  void aMapEvaluatesItsItemsOnceAndStartsIterationsInItemOrderUpToItsConcurrency() {
    SimulatedInstance i = shipping("[\"a\", \"b\", \"c\"]");

    assertThat(i.latest("ship-items").kind()).isEqualTo("map");
    assertThat(i.latest("ship-items").items()).isEqualTo(Json.read("[\"a\", \"b\", \"c\"]"));
    assertThat(i.sent()).containsExactly("ship-one[0] ship", "ship-one[1] ship");
    assertThat(i.latest("ship-items[0]").kind()).isEqualTo("iteration");
    assertThat(i.latest("ship-items[0]").parent()).isEqualTo("ship-items");
    assertThat(i.latest("ship-one[1]").parent()).isEqualTo("ship-items[1]");
    assertThat(i.inputOf("ship-one[1]").toString()).isEqualTo("{\"index\":1,\"item\":\"b\"}");
    assertThat(i.latest("ship-items[2]")).isNull();
  }

  @Test
  void anIterationThatEndsLetsTheNextOneStart() {
    SimulatedInstance i = shipping("[\"a\", \"b\", \"c\"]");

    i.succeed("ship-one[1]", "ship");

    assertThat(i.latest("ship-items[1]").status()).isEqualTo(StepStatus.SUCCEEDED);
    assertThat(i.sent()).containsExactly("ship-one[2] ship");
    assertThat(i.inputOf("ship-one[2]").toString()).isEqualTo("{\"index\":2,\"item\":\"c\"}");
  }

  @Test
  void theMapsOutputIsTheIterationsOutputsInItemOrderWhateverOrderTheyEndedIn() {
    SimulatedInstance i = shipping("[\"a\", \"b\", \"c\"]");
    i.answer("ship-one[1]", "ship", EventResult.SUCCESS, "{\"parcel\": \"B\"}");
    i.answer("ship-one[2]", "ship", EventResult.SUCCESS, "{\"parcel\": \"C\"}");

    i.answer("ship-one[0]", "ship", EventResult.SUCCESS, "{\"parcel\": \"A\"}");

    assertThat(i.latest("ship-items").output())
        .isEqualTo(Json.read("[{\"parcel\": \"A\"}, {\"parcel\": \"B\"}, {\"parcel\": \"C\"}]"));
    assertThat(i.sent()).containsExactly("notify notify");
    assertThat(i.last.dispatches().get(0).outputs().get("ship-items").size()).isEqualTo(3);
  }

  @Test
  void aToleratedFailureLeavesANullInTheOutputAndTheInstanceGoesOn() {
    SimulatedInstance i = shipping("[\"a\", \"b\"]");

    i.fail("ship-one[0]", "ship");
    assertThat(i.latest("ship-items[0]").status()).isEqualTo(StepStatus.FAILED);
    assertThat(i.latest("ship-items[0]").errorReason()).contains("ship-one[0]").contains("the parcel is lost");
    assertThat(i.status).isEqualTo(InstanceStatus.RUNNING);
    assertThat(i.last.lastError()).isNull();

    i.succeed("ship-one[1]", "ship");
    assertThat(i.latest("ship-items").status()).isEqualTo(StepStatus.SUCCEEDED);
    assertThat(i.latest("ship-items").output()).isEqualTo(Json.read("[null, {\"ship_one_1_\": true}]"));
    assertThat(i.sent()).containsExactly("notify notify");
  }

  @Test
  void oneFailureMoreThanToleratedFailsTheMapAwaitsWhatIsInFlightThenUndoesTheDoneIterationsNewestFirst() {
    SimulatedInstance i = shipping("[\"a\", \"b\", \"c\", \"d\", \"e\"]");
    i.succeed("ship-one[1]", "ship");                 // done first
    i.fail("ship-one[0]", "ship");                    // tolerated; 3 starts
    i.succeed("ship-one[2]", "ship");                 // done second; 4 starts
    assertThat(i.sent()).containsExactly("ship-one[4] ship");
    i.fail("ship-one[3]", "ship");                    // the second failure: past the tolerance

    assertThat(i.last.lastError().step()).isEqualTo("ship-one[3]");
    assertThat(i.status).isEqualTo(InstanceStatus.RUNNING); // ship-one[4] is in flight: awaited
    assertThat(i.sent()).isEmpty();

    i.succeed("ship-one[4]", "ship");                 // done third, after the failure
    assertThat(i.latest("ship-items").status()).isEqualTo(StepStatus.FAILED);
    assertThat(i.status).isEqualTo(InstanceStatus.COMPENSATING);
    assertThat(i.sent()).containsExactly("ship-one[4]/compensate unship");
    assertThat(i.inputOf("ship-one[4]/compensate").toString()).isEqualTo("{\"index\":4,\"item\":\"e\"}");

    i.succeed("ship-one[4]", "unship");
    assertThat(i.sent()).containsExactly("ship-one[2]/compensate unship");
    i.succeed("ship-one[2]", "unship");
    assertThat(i.sent()).containsExactly("ship-one[1]/compensate unship");
    i.succeed("ship-one[1]", "unship");
    assertThat(i.sent()).isEmpty(); // prepare declares no compensation; the failed ones never took effect
    assertThat(i.status).isEqualTo(InstanceStatus.COMPENSATED);
  }

  @Test
  void anEmptyListEndsTheMapAtOnceWithAnEmptyOutput() {
    SimulatedInstance i = shipping("[]");

    assertThat(i.latest("ship-items").status()).isEqualTo(StepStatus.SUCCEEDED);
    assertThat(i.latest("ship-items").output()).isEqualTo(Json.read("[]"));
    assertThat(i.sent()).containsExactly("notify notify");
  }

  @Test
  void itemsThatAreNotAListFailTheMapWithTheExpressionsError() {
    SimulatedInstance i = shipping("{\"a\": 1}");

    assertThat(i.latest("ship-items").status()).isEqualTo(StepStatus.FAILED);
    assertThat(i.latest("ship-items").errorCode()).isEqualTo(StateMachine.EXPRESSION_ERROR);
    assertThat(i.latest("ship-items").errorReason()).contains("not a list");
    assertThat(i.status).isEqualTo(InstanceStatus.FAILED);
  }

  @Test
  void moreItemsThanAMapTakesFailItWithTooManyItems() {
    StringBuilder items = new StringBuilder("[0");
    for (int n = 1; n <= dev.baton.api.v1alpha1.Bounds.MAP_ITEMS; n++) {
      items.append(',').append(n);
    }
    SimulatedInstance i = shipping(items.append(']').toString());

    assertThat(i.latest("ship-items").errorCode()).isEqualTo(StateMachine.TOO_MANY_ITEMS);
    assertThat(i.latest("ship-items").errorReason()).contains("10001 items");
  }

  @Test
  void aCancelThatCompensatesStopsTheIterationsNotStartedAndUndoesTheDoneOnes() {
    SimulatedInstance i = shipping("[\"a\", \"b\", \"c\", \"d\"]");
    i.succeed("ship-one[0]", "ship"); // 2 starts

    i.decide(new Stimulus.Cancel(true, Set.of()));
    assertThat(i.sent()).isEmpty(); // ship-one[1] and [2] may be at a worker: awaited

    i.succeed("ship-one[1]", "ship");
    i.succeed("ship-one[2]", "ship");
    assertThat(i.sent()).containsExactly("ship-one[2]/compensate unship");
    assertThat(i.latest("ship-items[3]")).isNull();
    i.succeed("ship-one[2]", "unship");
    i.succeed("ship-one[1]", "unship");
    i.succeed("ship-one[0]", "unship");
    assertThat(i.status).isEqualTo(InstanceStatus.CANCELLED);
  }

  @Test
  void theInstancesDeadlineTimesOutTheIterationsInFlightAndStartsNoOther() {
    SimulatedInstance i = shipping("[\"a\", \"b\", \"c\"]");
    i.pastDeadline = true;

    i.decide(new Stimulus.InstanceTimedOut());

    assertThat(i.latest("ship-one[0]").errorCode()).isEqualTo(StateMachine.INSTANCE_TIMEOUT);
    assertThat(i.latest("ship-one[1]").errorCode()).isEqualTo(StateMachine.INSTANCE_TIMEOUT);
    assertThat(i.latest("ship-items[2]")).isNull();
    // Both timed-out attempts may have shipped: undone, the later-ended first.
    assertThat(i.status).isEqualTo(InstanceStatus.COMPENSATING);
    assertThat(i.sent()).containsExactly("ship-one[1]/compensate unship");
  }

  @Test
  void aRetrySendsTheFailedIterationsAgainAndTheMapCarriesOnWithTheSameItems() {
    WorkflowDefinition stop = yaml("stop", """
        {entity: order, onFailure: Stop, steps: [
          {name: fan, map: {items: "input.items", steps: [{name: one, service: s, command: one}]}}]}
        """);
    SimulatedInstance i = new SimulatedInstance(stop, "{\"items\": [10, 20, 30]}");
    i.succeed("one[0]", "one");
    i.fail("one[1]", "one");
    i.succeed("one[2]", "one");
    assertThat(i.status).isEqualTo(InstanceStatus.FAILED);

    i.decide(new Stimulus.Retry());
    assertThat(i.sent()).containsExactly("one[1] one");
    assertThat(i.latest("one[1]").attempt()).isEqualTo(2);
    assertThat(i.latest("fan[1]").isRunning()).isTrue();

    i.succeed("one[1]", "one");
    assertThat(i.status).isEqualTo(InstanceStatus.SUCCEEDED);
    assertThat(i.latest("fan").output().size()).isEqualTo(3);
  }

  @Test
  void insideAnIterationExpressionsSeeItsItemAndItsOwnStepsAndAnUnmappedTaskGetsItemAndIndex() {
    SimulatedInstance i = new SimulatedInstance(CHECKED, "{\"items\": [1, 2], \"customer\": \"c-1\"}");
    assertThat(i.sent()).containsExactly("check-one[0] check", "check-one[1] check");

    i.answer("check-one[1]", "check", EventResult.SUCCESS, "{\"ok\": true}");
    assertThat(i.latest("verdict[1]").chosen()).isEqualTo("0");        // item 2 > 1 and its own check said ok
    JsonNode input = i.inputOf("record-one[1]");
    assertThat(input.get("item").asInt()).isEqualTo(2);
    assertThat(input.get("index").asInt()).isEqualTo(1);
    assertThat(input.get("customer").asText()).isEqualTo("c-1");
    assertThat(input.get("ok").asBoolean()).isTrue();

    i.answer("check-one[0]", "check", EventResult.SUCCESS, "{\"ok\": true}");
    assertThat(i.latest("verdict[0]").chosen()).isEqualTo("otherwise"); // item 1 is not > 1
  }

  @Test
  void anAnswerForAnIterationNeverSentIsStale() {
    SimulatedInstance i = shipping("[\"a\"]");

    Transition stale = i.decide(new Stimulus.Result(new InboundEvent("ev-x", "ship", "default", UUID.randomUUID(),
        "ship-one[7]", 1, "ship", EventResult.SUCCESS, Json.read("{}"), null, null)));

    assertThat(stale.kind()).isEqualTo(Transition.Kind.STALE);
    assertThat(stale.reason()).contains("ship-one[7]").contains("never sent");
  }

  @Test
  void theInstancesOutputsNameTheMapAndNotEachIteration() {
    SimulatedInstance i = shipping("[\"a\"]");
    i.succeed("ship-one[0]", "ship");
    List<StepState> before = List.copyOf(i.rows);
    Transition t = i.succeed("notify", "notify");

    ObjectNode outputs = Ending.of(before, t).orElseThrow().outputs();
    assertThat(outputs.has("ship-items")).isTrue();
    assertThat(outputs.has("ship-one[0]")).isFalse();
    assertThat(outputs.has("ship-items[0]")).isFalse();
  }
}
