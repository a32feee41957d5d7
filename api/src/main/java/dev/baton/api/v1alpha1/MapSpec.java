package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.api.crd.ListMap;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/** A map step: the same steps once per item of a list decided at run time, results in item order. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("Map: the same steps once per item of a list evaluated at run time; the output is the list of each "
    + "iteration's last output, in item order.")
public class MapSpec {

  @JsonPropertyDescription("A CEL expression over 'input' and 'steps' yielding the list to map over, e.g. input.items "
      + "(at most 10000 items).")
  @Required
  @Size(max = Bounds.EXPRESSION)
  private String items;

  @JsonPropertyDescription("How many iterations run at once; 0 or absent: all of them.")
  @Min(0)
  @Max(Bounds.MAP_ITEMS)
  private Integer maxConcurrency;

  @JsonPropertyDescription("How many iterations may fail before the map fails (0, the default: none). A tolerated "
      + "iteration's output is null.")
  @Min(0)
  @Max(Bounds.MAP_ITEMS)
  private Integer toleratedFailures;

  @JsonPropertyDescription("The steps of one iteration, in order; their expressions also see 'item' and 'index'.")
  @Required
  @Size(min = 1, max = Bounds.NESTED_STEPS)
  @ListMap(keys = "name")
  private List<StepSpec> steps = new ArrayList<>();

  public MapSpec() {}

  public MapSpec(String items, List<StepSpec> steps) {
    this.items = items;
    setSteps(steps);
  }

  public String getItems() {
    return items;
  }

  public void setItems(String items) {
    this.items = items;
  }

  public Integer getMaxConcurrency() {
    return maxConcurrency;
  }

  public void setMaxConcurrency(Integer maxConcurrency) {
    this.maxConcurrency = maxConcurrency;
  }

  public Integer getToleratedFailures() {
    return toleratedFailures;
  }

  public void setToleratedFailures(Integer toleratedFailures) {
    this.toleratedFailures = toleratedFailures;
  }

  public List<StepSpec> getSteps() {
    return steps;
  }

  public void setSteps(List<StepSpec> steps) {
    this.steps = steps == null ? new ArrayList<>() : steps;
  }
}
