package dev.baton.operator.status;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.ConsumerStatus;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceStatus;
import dev.baton.contract.topology.ConsumerTopology;
import dev.baton.operator.broker.BrokerQueue;
import dev.baton.operator.topology.SyncReport;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import dev.baton.operator.monitoring.KubeEvents;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The one place that writes a WorkerService's status: built whole from {@link WorkerServiceFindings}. */
public final class WorkerServiceStatusWriter {

  private final Clock clock;
  private final KubeEvents events;
  private final QuietStatus<WorkerServiceStatus> quiet;

  /** Writes queue depths as soon as they change (for tests of the status itself). */
  public WorkerServiceStatusWriter(Clock clock) {
    this(clock, KubeEvents.none(), Duration.ZERO);
  }

  /**
   * @param events where a Warning goes when Ready turns False
   * @param statusInterval how often a change of queue depths or consumers alone is written
   */
  public WorkerServiceStatusWriter(Clock clock, KubeEvents events, Duration statusInterval) {
    this.clock = clock;
    this.events = events;
    this.quiet = new QuietStatus<>(statusInterval, clock, WorkerServiceStatus.class, WorkerServiceStatus::new,
        WorkerServiceStatusWriter::copyLiveFigures);
  }

  public UpdateControl<WorkerService> write(WorkerService ws, WorkerServiceFindings findings) {
    WorkerServiceStatus status = quiet.settle(ws, ws.getStatus(), build(ws, findings));
    ReadyEvents.onTransition(events, ws, readyVerdict(findings));
    return StatusPatch.ifChanged(ws, status, WorkerService::new);
  }

  /** The resource is deleted. */
  public void forget(WorkerService ws) {
    quiet.forget(ws);
  }

  /**
   * The figures that change with traffic: messages waiting and retrying, and consumers, per queue and in total.
   * Dead letters are not among them: each new one is reported at once.
   */
  static void copyLiveFigures(WorkerServiceStatus from, WorkerServiceStatus to) {
    to.setMessages(from.getMessages());
    to.setRetrying(from.getRetrying());
    Map<String, ConsumerStatus> before = new HashMap<>();
    Stream.concat(from.getCommands().stream(), from.getSubscriptions().stream()).forEach(c -> before.put(c.getName(), c));
    Stream.concat(to.getCommands().stream(), to.getSubscriptions().stream()).forEach(c -> {
      ConsumerStatus b = before.get(c.getName());
      c.setMessages(b == null ? null : b.getMessages());
      c.setConsumers(b == null ? null : b.getConsumers());
      c.setRetrying(b == null ? null : b.getRetrying());
    });
  }

  /** After an unexpected exception: the status as it was, with Ready=False naming the error. */
  public ErrorStatusUpdateControl<WorkerService> failed(WorkerService ws, Exception e) {
    return ErrorStatus.of(ws, e, WorkerServiceStatus.class, WorkerServiceStatus::new, WorkerService::new, clock, events);
  }

  WorkerServiceStatus build(WorkerService ws, WorkerServiceFindings f) {
    // Broker-side fields are carried over when this pass did not look at the broker: nothing there changed.
    WorkerServiceStatus status = f.report() == null
        ? StatusPatch.copy(ws.getStatus(), WorkerServiceStatus.class, WorkerServiceStatus::new)
        : new WorkerServiceStatus();
    status.setObservedGeneration(ws.getMetadata().getGeneration());
    status.setService(f.service());
    status.setCommandCount(ws.getSpec() == null ? 0 : ws.getSpec().getCommands().size());
    status.setUsername(f.username());
    status.setCredentialsSecret(f.credentialsSecret());
    status.setDeployment(f.deployment() == null ? null : f.deployment().getMetadata().getName());
    if (f.plan() != null && f.report() != null) {
      fillTopology(status, f);
    }

    Conditions conditions = new Conditions(
        ws.getStatus() == null ? null : ws.getStatus().getConditions(), ws.getMetadata().getGeneration(), clock)
        .set(ConditionTypes.TOPOLOGY_READY, f.topology())
        .set(ConditionTypes.DEPLOYMENT_READY, deploymentVerdict(f));
    // Optional: reported beside Ready, never part of it. A pass that did not get to it keeps what was reported.
    if (f.autoscaling() != null) {
      conditions.set(ConditionTypes.AUTOSCALING_READY, f.autoscaling());
    } else if (ws.getSpec() != null && ws.getSpec().getAutoscaling() != null) {
      conditions.keep(ConditionTypes.AUTOSCALING_READY);
    }
    status.setConditions(new ArrayList<>(conditions.ready(readyVerdict(f)).toList()));
    return status;
  }

  /** Ready sums up the topology and the Deployment (autoscaling is optional and reported on its own). */
  private static ConditionState readyVerdict(WorkerServiceFindings f) {
    ConditionState deployment = deploymentVerdict(f);
    if (!f.topology().ok()) {
      return f.topology();
    }
    if (!deployment.ok()) {
      return deployment;
    }
    return ConditionState.ok(Reason.READY, readyMessage(f));
  }

  private static void fillTopology(WorkerServiceStatus status, WorkerServiceFindings f) {
    SyncReport report = f.report();
    status.setExchanges(new ArrayList<>(f.plan().exchangeNames()));
    status.setQueues(new ArrayList<>(f.plan().queueNames()));
    List<ConsumerStatus> commands = new ArrayList<>();
    List<ConsumerStatus> subscriptions = new ArrayList<>();
    long messages = 0;
    long retrying = 0;
    long deadLetters = 0;
    for (ConsumerTopology c : f.plan().consumers()) {
      ConsumerStatus cs = new ConsumerStatus();
      cs.setName(c.name());
      cs.setQueue(c.queue());
      cs.setRoutingKey(c.routingKey());
      cs.setRetryQueues(new ArrayList<>(c.retryQueues()));
      cs.setDeadLetterQueue(c.deadLetterQueue());
      cs.setMessages(report.messages(c.queue()));
      cs.setConsumers(report.consumers(c.queue()));
      cs.setRetrying(c.retryQueues().stream().mapToLong(report::messages).sum());
      cs.setDeadLetters(report.messages(c.deadLetterQueue()));
      messages += cs.getMessages();
      retrying += cs.getRetrying();
      deadLetters += cs.getDeadLetters();
      (c.kind() == ConsumerTopology.Kind.COMMAND ? commands : subscriptions).add(cs);
    }
    status.setCommands(commands);
    status.setSubscriptions(subscriptions);
    status.setMessages(messages);
    status.setRetrying(retrying);
    status.setDeadLetters(deadLetters);
    status.setDrainingQueues(new ArrayList<>(report.draining().stream().map(BrokerQueue::name).toList()));
  }

  private static ConditionState deploymentVerdict(WorkerServiceFindings f) {
    if (!f.deploymentRequested()) {
      return ConditionState.ok(Reason.NOT_REQUESTED, "no spec.deployment: run the workers elsewhere with the credentials in "
          + "Secret " + Optional.ofNullable(f.credentialsSecret()).orElse("(not created yet)"));
    }
    Deployment d = f.deployment();
    if (d == null) {
      return ConditionState.failed(Reason.DEPLOYMENT_PENDING, f.topology().ok()
          ? "the Deployment is being created" : "the Deployment is created once the topology is in place (see TopologyReady)");
    }
    int wanted = d.getSpec() == null || d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
    int available = d.getStatus() == null || d.getStatus().getAvailableReplicas() == null
        ? 0 : d.getStatus().getAvailableReplicas();
    String counts = available + "/" + wanted + " replicas of Deployment " + d.getMetadata().getName() + " available";
    return available >= wanted ? ConditionState.ok(Reason.AVAILABLE, counts)
        : ConditionState.failed(Reason.REPLICAS_UNAVAILABLE, counts + ": see 'kubectl describe deployment "
            + d.getMetadata().getName() + "' and its pods");
  }

  private static String readyMessage(WorkerServiceFindings f) {
    String message = "service '" + f.service() + "' is ready";
    if (f.report() != null && !f.report().draining().isEmpty()) {
      message += "; queues no longer in the spec are kept until empty: "
          + String.join(", ", f.report().draining().stream().map(BrokerQueue::name).toList());
    }
    return message;
  }
}
