package dev.baton.reliability.suite;

import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.RetryPolicySpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.OperatorSettings;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The operator in this JVM for a {@link Rig}: against the rig's node and vhost and mock API server, reading the live
 * counts and result routes from the rig's runtime; with a RetryPolicy and a WorkerService per service of the rig that
 * plan exactly the topology the rig declared, so the operator takes it over as it is.
 */
final class RigOperator implements AutoCloseable {

  static final String RETRY_POLICY = "ledger";

  private final Rig rig;
  private final String userPrefix = "baton-fi" + UUID.randomUUID().toString().substring(0, 4) + "-";
  private final BatonOperator operator;

  private RigOperator(Rig rig) {
    this.rig = rig;
    RetryPolicy policy = new RetryPolicy();
    policy.setMetadata(new ObjectMetaBuilder().withNamespace(Rig.NS).withName(RETRY_POLICY).build());
    RetryPolicySpec retry = new RetryPolicySpec();
    retry.setMaxAttempts(Rig.STAIRCASE.maxAttempts());
    retry.setDelays(new ArrayList<>(Rig.STAIRCASE_DELAYS));
    policy.setSpec(retry);
    rig.client.resource(policy).create();
    rig.services.forEach((service, commands) -> {
      WorkerService ws = new WorkerService();
      ws.setMetadata(new ObjectMetaBuilder().withNamespace(Rig.NS).withName(service).build());
      WorkerServiceSpec spec = new WorkerServiceSpec();
      commands.forEach(c -> spec.getCommands().add(new CommandSpec(c, RETRY_POLICY)));
      ws.setSpec(spec);
      rig.client.resource(ws).create();
    });
    OperatorSettings settings = OperatorSettings.localDefaults().toBuilder()
        .managementUrl(rig.rabbit.managementUrl()).amqp("127.0.0.1", rig.rabbit.amqpPort()).vhost(rig.vhost)
        .userPrefix(userPrefix).resync(Duration.ofSeconds(30)).serverSideApply(false)
        .runtimeUrl("http://127.0.0.1:" + rig.runtime().port()).runtimeToken(rig.apiToken)
        .countsInterval(Duration.ofSeconds(1)).build();
    operator = BatonOperator.start(rig.client, settings);
  }

  /** Starts the operator once the rig's runtime runs, and waits until the Workflow is Ready. */
  static RigOperator start(Rig rig) {
    RigOperator o = new RigOperator(rig);
    if (!Wait.until(Duration.ofSeconds(90), o::workflowReady)) {
      o.close();
      throw new IllegalStateException("the Workflow did not become Ready under the operator");
    }
    return o;
  }

  boolean workflowReady() {
    Workflow w = rig.client.resources(Workflow.class).inNamespace(Rig.NS).withName(Rig.WORKFLOW).get();
    return w != null && w.getStatus() != null && w.getMetadata().getGeneration().equals(w.getStatus()
        .getObservedGeneration()) && w.getStatus().condition(ConditionTypes.READY)
        .map(c -> "True".equals(c.getStatus())).orElse(false);
  }

  /** The bindings of the orchestrator queue, {@code exchange routingKey} each. */
  List<String> orchestratorBindings() {
    return rig.rabbit.management().getQueueBindings(rig.vhost, "q.orchestrator." + Rig.WORKFLOW).stream()
        .filter(b -> !b.getSource().isEmpty()).map(b -> b.getSource() + " " + b.getRoutingKey()).toList();
  }

  @Override
  public void close() {
    operator.close();
    try {
      rig.rabbit.management().getUsers().stream().filter(u -> u.getName().startsWith(userPrefix))
          .forEach(u -> rig.rabbit.management().deleteUser(u.getName()));
    } catch (RuntimeException ignored) {
      // best effort: the vhost goes with the rig
    }
  }
}
