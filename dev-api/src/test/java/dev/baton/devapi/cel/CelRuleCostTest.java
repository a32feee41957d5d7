package dev.baton.devapi.cel;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.crd.CommittedCrds;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every CEL rule of Baton's CRDs, costed from the schema's bounds as a real API server costs it before it accepts the
 * CRD ({@link RuleCost}), times its cardinality. The API server refuses a rule above {@code StaticEstimatedCostLimit}
 * and cuts an evaluation off at {@code PerCallLimit}; Baton keeps each rule below a tenth of the latter, so that a
 * nested Workflow shape or a longer list cannot creep up on either. Prints the table it checks.
 */
class CelRuleCostTest {

  static final long CEILING = RuleCost.PER_CALL_LIMIT / 10;

  static List<String> crds() {
    return CommittedCrds.CRD_FILES;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("crds")
  void everyRuleIsCheapOnARealApiServer(String file) {
    JsonNode crd = CommittedCrds.read(file);
    String kind = crd.at("/spec/names/kind").asText();
    CelValidator validator = new CelValidator(crd.at("/spec/versions/0/schema/openAPIV3Schema"));
    long total = 0;
    for (CelValidator.Compiled rule : validator.rules()) {
      assertThat(rule.error()).as("%s %s: %s", kind, rule.rule().path(), rule.rule().rule()).isNull();
      long cost = RuleCost.estimate(rule.ast(), rule.rule().schema(), rule.rule().atRoot());
      long expressionCost = cost * rule.rule().cardinality();
      total += expressionCost;
      System.out.printf("CEL cost %-14s %-24s %8d x %3d = %8d  %s%n", kind, rule.rule().path(), cost,
          rule.rule().cardinality(), expressionCost, rule.rule().rule());
      assertThat(expressionCost).as("estimated cost of %s %s: %s", kind, rule.rule().path(), rule.rule().rule())
          .isLessThanOrEqualTo(CEILING);
    }
    System.out.printf("CEL cost %-14s total %d (StaticEstimatedCRDCostLimit %d)%n", kind, total,
        RuleCost.STATIC_ESTIMATED_CRD_COST_LIMIT);
    assertThat(total).isLessThanOrEqualTo(RuleCost.STATIC_ESTIMATED_CRD_COST_LIMIT / 100);
  }
}
