package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.api.crd.ListSet;
import dev.baton.api.crd.OneOfRequired;
import dev.baton.contract.Names;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * A queue of this service bound to events it does not publish (docs/design.md#broker-names): another service's, from
 * its event exchange by a topic pattern, or the instance outcomes of a Workflow of this namespace, from the outcome
 * exchange.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
// The shapes, at no CEL cost; the rules below say in words what is wrong, and cover what the shapes let through (a
// service beside a workflow, a pattern or outcomes on the wrong one).
@OneOfRequired({"service,pattern", "workflow"})
@ValidationRule(value = "has(self.service) != has(self.workflow)",
    message = "set exactly one of service (another service's events) and workflow (a Workflow's instance outcomes)")
@ValidationRule(value = "!has(self.workflow) || !has(self.pattern)",
    message = "pattern is for a service's events; a Workflow's outcomes are chosen with outcomes")
@ValidationRule(value = "!has(self.outcomes) || has(self.workflow)",
    message = "outcomes are for a subscription to a Workflow's outcomes (set workflow)")
public class SubscriptionSpec {

  /** A Workflow's name, optionally {@code <namespace>/} before it (only its own namespace is granted). */
  public static final String WORKFLOW_PATTERN =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

  @JsonPropertyDescription("Subscription name, e.g. order_pay_failed_notify: the queue is q.<service>.<name>.")
  @Required
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String name;

  @JsonPropertyDescription("The service whose events to receive (its exchange <service>.event.topic.ex), with pattern. "
      + "Exactly one of service and workflow.")
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String service;

  @JsonPropertyDescription("Topic binding pattern over <entity>.<action>.<result>, e.g. '*.pay.failed' or 'order.#'; "
      + "required with service.")
  @Pattern("^[a-z0-9_*#-]+(\\.[a-z0-9_*#-]+)*$")
  @Size(max = Bounds.BINDING_PATTERN)
  private String pattern;

  @JsonPropertyDescription("A Workflow of this namespace whose instance outcomes to receive, as events from "
      + "baton.instance.topic.ex keyed <namespace>.<workflow>.<outcome>. Exactly one of service and workflow. "
      + "'<namespace>/<name>' names another namespace's Workflow, which is Forbidden unless the operator runs with "
      + "BATON_TENANCY_OPEN.")
  @Pattern(WORKFLOW_PATTERN)
  @Size(max = Bounds.NAME + 1 + Bounds.OBJECT_NAME)
  private String workflow;

  @JsonPropertyDescription("Which outcomes of the workflow to receive; all four when left out.")
  @Size(max = 4)
  @ListSet
  private List<Outcome> outcomes;

  @JsonPropertyDescription("Name of a RetryPolicy in the same namespace for failures of the subscriber.")
  @Pattern(Bounds.OBJECT_NAME_PATTERN)
  @Size(max = Bounds.OBJECT_NAME)
  private String retryPolicy;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getService() {
    return service;
  }

  public void setService(String service) {
    this.service = service;
  }

  public String getPattern() {
    return pattern;
  }

  public void setPattern(String pattern) {
    this.pattern = pattern;
  }

  public String getWorkflow() {
    return workflow;
  }

  public void setWorkflow(String workflow) {
    this.workflow = workflow;
  }

  public List<Outcome> getOutcomes() {
    return outcomes;
  }

  public void setOutcomes(List<Outcome> outcomes) {
    this.outcomes = outcomes;
  }

  public String getRetryPolicy() {
    return retryPolicy;
  }

  public void setRetryPolicy(String retryPolicy) {
    this.retryPolicy = retryPolicy;
  }
}
