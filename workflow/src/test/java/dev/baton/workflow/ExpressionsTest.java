package dev.baton.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExpressionsTest {

  static final ObjectMapper JSON = new ObjectMapper();

  static final Map<String, Object> INPUT = Map.of("amount", 1500, "address", Map.of("city", "Lyon"), "rate", 0.5,
      "items", List.of(1, 2, 3));
  static final Map<String, Object> STEPS = Map.of(
      "fraud", Map.of("status", "SUCCEEDED", "output", Map.of("score", 42)),
      "approval", Map.of("status", "SUCCEEDED", "output", Map.of("by", "ana")));

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource(delimiterString = " :: ", quoteCharacter = '`', textBlock = """
      steps.fraud.output.score > 80 || input.amount > 1000 :: true
      steps.fraud.output.score > 80 :: false
      has(steps.approval) :: true
      has(steps.ship) :: false
      steps.fraud.status == 'SUCCEEDED' :: true
      input.rate < 1.0 :: true
      input.items.all(i, i > 0) :: true
      input.address.city.startsWith('Ly') :: true
      'ship' in steps :: false
      """)
  void conditionsSeeTheInputAndTheFinishedSteps(String when, boolean expected) {
    assertThat(condition(when).test(INPUT, STEPS)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource(delimiterString = " :: ", quoteCharacter = '`', textBlock = """
      input.address :: {"city":"Lyon"}
      input.amount * 2 :: 3000
      input.rate :: 0.5
      has(steps.approval) ? steps.approval.output.by : 'auto' :: "ana"
      has(steps.nobody) ? steps.nobody.output.by : 'auto' :: "auto"
      input.items.map(i, i * 10) :: [10,20,30]
      {'total': input.amount, 'ok': true, 'none': null} :: {"total":1500,"ok":true,"none":null}
      """)
  void valuesComeOutAsJson(String text, String json) throws Exception {
    Object value = value(text).evaluate(INPUT, STEPS);
    assertThat(JSON.writeValueAsString(value)).isEqualTo(json);
  }

  @Test
  void jacksonNodesGoInAsWell() throws Exception {
    Map<String, Object> input = Map.of("order", JSON.readTree("{\"amount\": 12, \"lines\": [{\"sku\": \"a\"}]}"));
    assertThat(value("input.order.lines[0].sku + '-' + string(input.order.amount)").evaluate(input, Map.of()))
        .isEqualTo("a-12");
  }

  @Test
  void aMissingKeyAtRunTimeIsAnExpressionExceptionNamingTheExpression() {
    assertThatThrownBy(() -> value("steps.ship.output").evaluate(INPUT, STEPS))
        .isInstanceOf(ExpressionException.class)
        .hasMessageContaining("'steps.ship.output' failed")
        .hasMessageContaining("ship");
  }

  @Test
  void aConditionThatYieldsNoBoolAtRunTimeIsAnError() {
    assertThatThrownBy(() -> condition("steps.fraud.output.score").test(INPUT, STEPS))
        .isInstanceOf(ExpressionException.class)
        .hasMessageContaining("yielded 42")
        .hasMessageContaining("not a bool");
  }

  @Test
  void comprehensionsAreBoundedAtRunTime() {
    List<Integer> many = java.util.stream.IntStream.range(0, 2000).boxed().toList();
    assertThatThrownBy(() -> condition("input.many.all(i, i >= 0)").test(Map.of("many", many), Map.of()))
        .isInstanceOf(ExpressionException.class)
        .hasMessageContaining("Iteration budget exceeded: 1000");
    assertThat(condition("input.many.all(i, i >= 0)").test(Map.of("many", many.subList(0, 500)), Map.of())).isTrue();
  }

  @Test
  void expressionsKnowTheStepsTheyRead() {
    assertThat(value("has(steps.approval) ? steps.approval.output.by : steps['fraud'].status").referencedSteps())
        .containsExactlyInAnyOrder("approval", "fraud");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiterString = " :: ", quoteCharacter = '`', textBlock = """
      input.amount > :: <input>:1:15: mismatched input '<EOF>'
      1 + 2 :: expected type 'bool'
      order.amount > 1 :: undeclared reference to 'order'
      ' :: token recognition error
      """)
  void aConditionThatDoesNotCompileSaysWhy(String text, String error) {
    Expression.Compiled c = Expression.condition(text);
    assertThat(c.ok()).isFalse();
    assertThat(c.error()).contains(error);
  }

  static Expression condition(String text) {
    Expression.Compiled c = Expression.condition(text);
    assertThat(c.error()).isNull();
    return c.expression();
  }

  static Expression value(String text) {
    Expression.Compiled c = Expression.value(text);
    assertThat(c.error()).isNull();
    return c.expression();
  }
}
