package dev.baton.devapi.cel;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The API server's check of a CRD's CEL rules when the CRD itself is created or updated (apiextensions
 * {@code ValidateCustomResourceDefinitionOpenAPISchema}): every rule must compile, its estimated cost times its
 * cardinality must stay within {@code StaticEstimatedCostLimit}, and their sum within
 * {@code StaticEstimatedCRDCostLimit}. A CRD over budget is refused here as a real cluster would refuse it.
 */
public final class RuleBudget {

  private RuleBudget() {}

  /** The problems of a CustomResourceDefinition's rules, worded as the API server words them. */
  public static List<CelValidator.Violation> check(JsonNode crd) {
    List<CelValidator.Violation> out = new ArrayList<>();
    JsonNode versions = crd.path("spec").path("versions");
    for (int v = 0; v < versions.size(); v++) {
      JsonNode schema = versions.get(v).at("/schema/openAPIV3Schema");
      if (schema.isMissingNode()) {
        continue;
      }
      String prefix = "spec.versions[" + v + "].schema.openAPIV3Schema";
      long total = 0;
      for (SchemaRule rule : SchemaRule.of(schema)) {
        String field = prefix + (rule.atRoot() ? "" : "." + rule.path()) + ".x-kubernetes-validations.rule";
        CelValidator.Compiled compiled = CelValidator.compile(rule);
        if (compiled.error() != null) {
          out.add(new CelValidator.Violation(field, "Invalid value: \"" + rule.rule() + "\": " + compiled.error()));
          continue;
        }
        long cost;
        try {
          cost = SchemaRule.times(RuleCost.estimate(compiled.ast(), rule.schema(), rule.atRoot()), rule.cardinality());
        } catch (UnsupportedOperationException e) {
          continue;   // a Kubernetes library function: not costed here, the real server will
        }
        total = cost > Long.MAX_VALUE - total ? Long.MAX_VALUE : total + cost;
        if (cost > RuleCost.STATIC_ESTIMATED_COST_LIMIT) {
          out.add(new CelValidator.Violation(field, "Forbidden: " + exceeds("estimated rule cost", cost,
              RuleCost.STATIC_ESTIMATED_COST_LIMIT)));
        }
      }
      if (total > RuleCost.STATIC_ESTIMATED_CRD_COST_LIMIT) {
        out.add(new CelValidator.Violation(prefix, "Forbidden: " + exceeds(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", total,
            RuleCost.STATIC_ESTIMATED_CRD_COST_LIMIT)));
      }
    }
    return out;
  }

  private static String exceeds(String what, long cost, long limit) {
    double factor = (double) cost / limit;
    String by = factor > 100 ? "more than 100x" : String.format(Locale.ROOT, "factor of %.1fx", factor);
    return what + " exceeds budget by " + by + " (try simplifying the rule, or adding maxItems, maxProperties, and"
        + " maxLength where arrays, maps, and strings are declared)";
  }
}
