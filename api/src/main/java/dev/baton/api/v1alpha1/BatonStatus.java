package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.api.crd.ListMap;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What every Baton status has: the generation it describes and its conditions. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public abstract class BatonStatus {

  @JsonPropertyDescription("The metadata.generation this status describes.")
  private Long observedGeneration;

  @JsonPropertyDescription("Conditions of the resource, one per type; 'Ready' sums them up, with a reason and a message a person "
      + "can act on ('kubectl wait --for=condition=Ready').")
  @Size(max = Bounds.CONDITIONS)
  @ListMap(keys = "type")
  private List<Condition> conditions = new ArrayList<>();

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions == null ? new ArrayList<>() : conditions;
  }

  @JsonIgnore
  public Optional<Condition> condition(String type) {
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  @JsonIgnore
  public boolean isReady() {
    return condition(ConditionTypes.READY).map(c -> "True".equals(c.getStatus())).orElse(false);
  }
}
