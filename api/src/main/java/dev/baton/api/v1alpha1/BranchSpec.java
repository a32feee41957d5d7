package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.api.crd.ListMap;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/** One branch of a parallel step: steps run one after the other, alongside the other branches. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("One branch of a parallel step: its steps run in order, alongside the other branches.")
public class BranchSpec {

  @JsonPropertyDescription("The branch's steps, in order.")
  @Required
  @Size(min = 1, max = Bounds.NESTED_STEPS)
  @ListMap(keys = "name")
  private List<StepSpec> steps = new ArrayList<>();

  public BranchSpec() {}

  public BranchSpec(List<StepSpec> steps) {
    setSteps(steps);
  }

  public List<StepSpec> getSteps() {
    return steps;
  }

  public void setSteps(List<StepSpec> steps) {
    this.steps = steps == null ? new ArrayList<>() : steps;
  }
}
