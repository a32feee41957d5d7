package dev.baton.devapi.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The cost model against the API server's own figures: each case is a schema and rule from the table of
 * {@code TestCostEstimation} in apiextensions-apiserver's {@code pkg/apiserver/schema/cel/compilation_test.go}
 * (the bounded variant, "set maxLength"), with the cost the API server computes for it.
 */
class RuleCostTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
    "number array with all      | {type: array, maxItems: 10, items: {type: number}}                 | self.all(x, true)                          | 32",
    "string array with all      | {type: array, maxItems: 20, items: {type: string}}                 | self.all(x, true)                          | 62",
    "array of objects with all  | {type: array, maxItems: 50, items: {type: object, properties: {a: {type: string}}}} | self.all(x, true) | 152",
    "map of strings with all    | {type: object, maxProperties: 3, additionalProperties: {type: string}} | self.all(x, true)                      | 11",
    "string with contains       | {type: string, maxLength: 10}                                      | self.contains('test')                      | 5",
    "string with startsWith     | {type: string, maxLength: 15}                                      | self.startsWith('test')                    | 2",
    "concat string              | {type: string, maxLength: 4}                                       | size(self + \"hello\") > size(\"hello\")   | 7",
    "index of strings           | {type: array, maxItems: 8, items: {type: string}}                  | self[1] == self[1]                         | 314577",
    "O(n^2) loop with numbers   | {type: array, maxItems: 10, items: {type: number}}                 | self.all(x, self.all(y, true))             | 352",
    "O(n^3) loop with numbers   | {type: array, maxItems: 10, items: {type: number}}                 | self.all(x, self.all(y, self.all(z, true))) | 3552",
    "regex matches simple       | {type: string, maxLength: 50}                                      | self.matches(\"x\")                        | 22",
    "regex matches empty string | {type: string, maxLength: 10}                                      | \"\".matches(\"(((((((((())))))))))[0-9]\") | 7",
    "map of strings, value size | {type: object, maxProperties: 10, additionalProperties: {type: string, maxLength: 10}} | self.all(x, x.contains(self[x])) | 72",
    "string maxLength zero      | {type: string, maxLength: 0}                                       | self == \"x\"                              | 1",
    "enum with maxLength        | {type: string, maxLength: 1000, enum: [A, B, C, LongValue]}        | self.contains('A')                         | 401",
    "enum without maxLength     | {type: string, enum: [A, B, C, LongValue]}                          | self.contains('A')                         | 2",
    "size calls                 | {type: object, maxProperties: 10, additionalProperties: {type: integer}} | oldSelf.size() == self.size()        | 5",
  })
  void costsWhatTheApiServerComputes(String name, String schema, String rule, long expected) throws Exception {
    assertThat(cost(schema, rule)).as(name).isEqualTo(expected);
  }

  @Test
  void theOldStepUniquenessRuleWouldBeRefusedByARealServer() throws Exception {
    // docs/design.md#resources: 100 steps whose names had no maxLength, compared pairwise.
    long cost = cost("{type: array, maxItems: 100, items: {type: object, properties: {name: {type: string}}}}",
        "self.all(s, self.exists_one(t, t.name == s.name))");
    assertThat(cost).isGreaterThan(RuleCost.STATIC_ESTIMATED_COST_LIMIT);
    long bounded = cost("{type: array, maxItems: 100, items: {type: object, properties: {name: {type: string, maxLength: 63}}}}",
        "self.all(s, self.exists_one(t, t.name == s.name))");
    assertThat(bounded).isLessThan(cost).isGreaterThan(RuleCost.PER_CALL_LIMIT / 10);
  }

  @Test
  void kubernetesLibraryFunctionsAreNotGuessed() {
    assertThatThrownBy(() -> RuleCost.estimate(CelValidator.parse("self.isSorted()"),
        YAML.readTree("{type: array, maxItems: 3, items: {type: string, maxLength: 3}}"), false))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("isSorted");
  }

  @Test
  void rootMetadataNameIsCostedAsUnboundedAsOnKubernetes127() throws Exception {
    long cost = RuleCost.estimate(compile("self.metadata.name.contains('.')"),
        YAML.readTree("{type: object, properties: {metadata: {type: object, properties: {name: {type: string, maxLength: 63}}}}}"),
        true);
    assertThat(cost).isGreaterThan(300_000);
  }

  private static long cost(String schema, String rule) throws Exception {
    JsonNode node = YAML.readTree(schema);
    return RuleCost.estimate(compile(rule), node, false);
  }

  private static dev.cel.common.CelAbstractSyntaxTree compile(String rule) {
    CelValidator.Compiled compiled =
        CelValidator.compile(new SchemaRule("x", null, rule, null, null, null, 1, false));
    assertThat(compiled.error()).as(rule).isNull();
    return compiled.ast();
  }
}
