package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.api.crd.ListMap;
import dev.baton.contract.Names;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("What the service accepts and listens to, how its queues behave, and (optionally) the Deployment of its "
    + "workers.")
// Names are unique within commands and within subscriptions by list-map key; this rule, n x m comparisons, is what the
// bound on both lists (Bounds.CONSUMERS) keeps cheap (CelRuleCostTest).
@ValidationRule(value = "!has(self.commands) || !has(self.subscriptions) || self.commands.all(c, !self.subscriptions.exists(s, s.name == c.name))",
    message = "a subscription cannot have the name of a command: both are queues q.<service>.<name>")
public class WorkerServiceSpec extends TolerantSpec {

  @JsonPropertyDescription("Service name used in every broker name (S.command.topic.ex, q.S.C, ...); defaults to metadata.name. "
      + "Lowercase letters, digits, '_' and '-', no dots; 'retry', 'dlx' and 'orchestrator' are reserved. Unique per RabbitMQ vhost.")
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  @ValidationRule(value = "!(self in ['retry', 'dlx', 'orchestrator'])",
      message = "'retry', 'dlx' and 'orchestrator' are reserved: they begin Baton's own queue names")
  private String service;

  @JsonPropertyDescription("Commands the service accepts: one queue q.<service>.<command> each, fed by routing key service.<service>.<command>. "
      + "Names are unique.")
  @Size(max = Bounds.CONSUMERS)
  @ListMap(keys = "name")
  private List<CommandSpec> commands = new ArrayList<>();

  @JsonPropertyDescription("Subscriptions to other services' events, by topic pattern (e.g. '*.pay.failed'), or to the instance "
      + "outcomes of a Workflow of this namespace: one queue q.<service>.<name> each. Names are unique, and differ from the "
      + "command names.")
  @Size(max = Bounds.CONSUMERS)
  @ListMap(keys = "name")
  private List<SubscriptionSpec> subscriptions = new ArrayList<>();

  @JsonPropertyDescription("Which other namespaces may command this service and subscribe to its events; without it, "
      + "only this namespace may.")
  private AccessSpec access;

  @JsonPropertyDescription("Queue type and worker prefetch.")
  // Defaulted so that its type is always set, and the transition rule on it always sees the old type.
  @Default("{}")
  private QueueSettings queue = new QueueSettings();

  @JsonPropertyDescription("The workers' Deployment. Without it only topology and credentials are managed (workers run elsewhere).")
  private DeploymentSettings deployment;

  @JsonPropertyDescription("Scale the Deployment on queue depth (needs KEDA in the cluster).")
  private AutoscalingSettings autoscaling;

  @JsonPropertyDescription("On deletion: Retain keeps queues that still hold messages, Delete removes everything.")
  @Default("Retain")
  private DeletionPolicy deletionPolicy = DeletionPolicy.Retain;

  @JsonPropertyDescription("true pauses the service's commands: the runtime dispatches none to it (they wait, in order) "
      + "and the timeouts of the steps whose commands wait stop; a command already at a worker keeps its deadline. "
      + "false carries on where it stopped: each waiting command is sent once, with its remaining time.")
  @Default("false")
  private Boolean paused;

  public String getService() {
    return service;
  }

  public void setService(String service) {
    this.service = service;
  }

  public List<CommandSpec> getCommands() {
    return commands;
  }

  public void setCommands(List<CommandSpec> commands) {
    this.commands = commands == null ? new ArrayList<>() : commands;
  }

  public List<SubscriptionSpec> getSubscriptions() {
    return subscriptions;
  }

  public void setSubscriptions(List<SubscriptionSpec> subscriptions) {
    this.subscriptions = subscriptions == null ? new ArrayList<>() : subscriptions;
  }

  public AccessSpec getAccess() {
    return access;
  }

  public void setAccess(AccessSpec access) {
    this.access = access;
  }

  public QueueSettings getQueue() {
    return queue;
  }

  public void setQueue(QueueSettings queue) {
    this.queue = queue == null ? new QueueSettings() : queue;
  }

  public DeploymentSettings getDeployment() {
    return deployment;
  }

  public void setDeployment(DeploymentSettings deployment) {
    this.deployment = deployment;
  }

  public AutoscalingSettings getAutoscaling() {
    return autoscaling;
  }

  public void setAutoscaling(AutoscalingSettings autoscaling) {
    this.autoscaling = autoscaling;
  }

  public Boolean getPaused() {
    return paused;
  }

  public void setPaused(Boolean paused) {
    this.paused = paused;
  }

  public DeletionPolicy getDeletionPolicy() {
    return deletionPolicy;
  }

  public void setDeletionPolicy(DeletionPolicy deletionPolicy) {
    this.deletionPolicy = deletionPolicy == null ? DeletionPolicy.Retain : deletionPolicy;
  }
}
