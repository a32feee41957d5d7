package dev.baton.operator.it;

import dev.baton.api.v1alpha1.AutoscalingSettings;
import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.DeploymentSettings;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.RetryPolicySpec;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Custom resources as a GitOps repository would hold them, built in code. */
public final class Crs {

  private Crs() {}

  public static RetryPolicy retryPolicy(String namespace, String name, int maxAttempts, String... delays) {
    RetryPolicy p = new RetryPolicy();
    p.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
    RetryPolicySpec spec = new RetryPolicySpec();
    spec.setMaxAttempts(maxAttempts);
    spec.setDelays(new ArrayList<>(List.of(delays)));
    p.setSpec(spec);
    return p;
  }

  /** A WorkerService with the given commands, each {@code name} or {@code name:retryPolicy}. */
  public static WorkerService workerService(String namespace, String name, String... commands) {
    return workerService(namespace, name, spec -> {}, commands);
  }

  public static WorkerService workerService(String namespace, String name, Consumer<WorkerServiceSpec> more,
      String... commands) {
    WorkerService ws = new WorkerService();
    ws.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
    WorkerServiceSpec spec = new WorkerServiceSpec();
    for (String c : commands) {
      String[] parts = c.split(":");
      spec.getCommands().add(new CommandSpec(parts[0], parts.length > 1 ? parts[1] : null));
    }
    more.accept(spec);
    ws.setSpec(spec);
    return ws;
  }

  public static DeploymentSettings deployment(String image, int replicas) {
    DeploymentSettings d = new DeploymentSettings();
    d.setImage(image);
    d.setReplicas(replicas);
    return d;
  }

  public static AutoscalingSettings autoscaling(int min, int max, int depth) {
    AutoscalingSettings a = new AutoscalingSettings();
    a.setMinReplicas(min);
    a.setMaxReplicas(max);
    a.setTargetQueueDepth(depth);
    return a;
  }

  public static Workflow workflow(String namespace, String name, String entity, StepSpec... steps) {
    Workflow wf = new Workflow();
    wf.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity(entity);
    spec.setSteps(new ArrayList<>(List.of(steps)));
    wf.setSpec(spec);
    return wf;
  }

  public static StepSpec step(String name, String service, String command, String compensate) {
    StepSpec s = new StepSpec(name, service, command);
    s.setCompensate(compensate);
    return s;
  }
}
