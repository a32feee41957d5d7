package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.api.crd.ListMap;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/** One case of a choice step: a condition and the steps it runs. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("One case of a choice step: when its condition holds (and no earlier case's did), its steps run.")
public class CaseSpec {

  @JsonPropertyDescription("A CEL expression over 'input' and 'steps' that yields a bool, e.g. "
      + "\"steps.fraud.output.score > 80 || input.amount > 1000\".")
  @Required
  @Size(max = Bounds.EXPRESSION)
  private String when;

  @JsonPropertyDescription("The steps run when this case is chosen, in order (may be empty).")
  @Size(max = Bounds.NESTED_STEPS)
  @ListMap(keys = "name")
  private List<StepSpec> steps = new ArrayList<>();

  public CaseSpec() {}

  public CaseSpec(String when, List<StepSpec> steps) {
    this.when = when;
    setSteps(steps);
  }

  public String getWhen() {
    return when;
  }

  public void setWhen(String when) {
    this.when = when;
  }

  public List<StepSpec> getSteps() {
    return steps;
  }

  public void setSteps(List<StepSpec> steps) {
    this.steps = steps == null ? new ArrayList<>() : steps;
  }
}
