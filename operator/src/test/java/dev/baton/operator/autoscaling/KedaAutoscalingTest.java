package dev.baton.operator.autoscaling;

import static dev.baton.operator.it.Crs.autoscaling;
import static dev.baton.operator.it.Crs.deployment;
import static dev.baton.operator.it.Crs.workerService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.broker.FakeBrokerClient;
import dev.baton.operator.dependent.CredentialsSecretDependent;
import dev.baton.operator.dependent.WorkerDeploymentDependent;
import dev.baton.operator.model.WorkerServiceTranslator;
import dev.baton.operator.status.ConditionState;
import dev.baton.operator.status.Reason;
import dev.baton.operator.topology.WorkerUserSync;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.api.reconciler.dependent.managed.ManagedWorkflowAndDependentResourceContext;
import io.javaoperatorsdk.operator.processing.dependent.workflow.WorkflowReconcileResult;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The AutoscalingReady verdicts and the conditions of the KEDA dependents, without a cluster or a broker. */
class KedaAutoscalingTest {

  final FakeBrokerClient broker = new FakeBrokerClient();
  final KedaAutoscaling autoscaling = new KedaAutoscaling(new KedaDetector(Duration.ofMinutes(1), Clock.systemUTC()),
      new WorkerUserSync(broker.snapshot()), OperatorSettings.localDefaults());
  final WorkerService ws = workerService("shop", "payment", spec -> {
    spec.setDeployment(deployment("example/payment:1.0", 2));
    spec.setAutoscaling(autoscaling(1, 10, 50));
  }, "pay", "refund");
  final ServiceTopology topology = TopologyPlanner.plan(WorkerServiceTranslator.fromCrd(ws, n -> Optional.empty())
      .value());
  final List<ScaledObject> cached = new ArrayList<>();

  @Test
  void theDependentsAreActiveWhereKedaIsServedAndReconciledWhileWanted() {
    assertThat(conditions(plan(true, true, null))).containsExactly(true, true);
    assertThat(conditions(plan(true, false, "theirs"))).containsExactly(true, false);
    assertThat(conditions(plan(false, false, null))).containsExactly(false, false);
  }

  @Test
  void withoutAutoscalingThereIsNoVerdict() {
    ws.getSpec().setAutoscaling(null);
    assertThat(verdict(plan(true, false, null), false)).isNull();
  }

  @Test
  void autoscalingWithoutADeploymentHasNothingToScale() {
    ws.getSpec().setDeployment(null);
    assertThat(verdict(plan(true, false, null), false).reason()).isEqualTo(Reason.NO_DEPLOYMENT);
  }

  @Test
  void withoutKedaTheConditionSaysWhatToInstall() {
    ConditionState c = verdict(plan(false, false, null), false);
    assertThat(c.ok()).isFalse();
    assertThat(c.reason()).isEqualTo(Reason.KEDA_NOT_INSTALLED);
    assertThat(c.message()).contains("install KEDA", "spec.deployment.replicas (2)");
  }

  @Test
  void someoneElsesScaledObjectIsAConflict() {
    ConditionState c = verdict(plan(true, false, "ScaledObject payment already exists"), false);
    assertThat(c.reason()).isEqualTo(Reason.CONFLICT);
    assertThat(c.message()).isEqualTo("ScaledObject payment already exists");
  }

  @Test
  void aRefusedKedaApiIsKedaForbidden() {
    ConditionState c = verdict(plan(true, true, null), true);
    assertThat(c.reason()).isEqualTo(Reason.KEDA_FORBIDDEN);
    assertThat(c.message()).contains("autoscaling.keda.enabled", "spec.deployment.replicas (2)");
  }

  @Test
  void aWrittenScaledObjectIsReadyUnlessKedaSaysOtherwise() {
    ScaledObject so = KedaObjects.scaledObject(ws, topology, "/");
    cached.add(so);
    ConditionState c = verdict(plan(true, true, null), false);
    assertThat(c.ok()).isTrue();
    assertThat(c.reason()).isEqualTo(Reason.SCALED_OBJECT_READY);
    assertThat(c.message()).contains("from 1 to 10 replicas", "each of 2 queue(s)");

    so.setAdditionalProperty("status", Map.of("conditions", List.of(Map.of("type", "Ready", "status", "False",
        "reason", "ScaledObjectCheckFailed", "message", "no such queue"))));
    c = verdict(plan(true, true, null), false);
    assertThat(c.reason()).isEqualTo(Reason.SCALER_NOT_READY);
    assertThat(c.message()).contains("ScaledObjectCheckFailed no such queue");
  }

  @Test
  void only403sOnKedaRequestsAreARefusalEverythingElseIsThrown() {
    assertThat(KedaAutoscaling.refusedByRbac(result(Map.of()))).isFalse();
    assertThat(KedaAutoscaling.refusedByRbac(result(Map.of(new TriggerAuthenticationDependent(), error(403,
        "triggerauthentications is forbidden"))))).isTrue();
    // An informer that may not list ScaledObjects fails on the dependent that activated it: the Deployment.
    assertThat(KedaAutoscaling.refusedByRbac(result(Map.of(new WorkerDeploymentDependent(), new IllegalStateException(
        "informer", error(403, "GET /apis/keda.sh/v1alpha1/scaledobjects: forbidden")))))).isTrue();
    assertThatThrownBy(() -> KedaAutoscaling.refusedByRbac(result(Map.of(new ScaledObjectDependent(),
        error(500, "boom"))))).isInstanceOf(AggregatedOperatorException.class);
    assertThatThrownBy(() -> KedaAutoscaling.refusedByRbac(result(Map.of(new CredentialsSecretDependent(),
        error(403, "secrets is forbidden"))))).isInstanceOf(AggregatedOperatorException.class);
  }

  private AutoscalerPlan plan(boolean served, boolean wanted, String conflict) {
    return new AutoscalerPlan(served, wanted, conflict, "baton-payment.keda", "http://127.0.0.1:15672/api/", "/",
        topology);
  }

  private ConditionState verdict(AutoscalerPlan plan, boolean refused) {
    return autoscaling.verdict(ws, plan, refused, context(plan), new ArrayList<>());
  }

  private List<Boolean> conditions(AutoscalerPlan plan) {
    Context<WorkerService> context = context(plan);
    return List.of(new KedaServed().isMet(null, ws, context), new AutoscalingWanted().isMet(null, ws, context));
  }

  private static KubernetesClientException error(int code, String message) {
    return new KubernetesClientException(new StatusBuilder().withCode(code).withMessage(message).build());
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static WorkflowReconcileResult result(Map<? extends DependentResource, Exception> errors) {
    return new WorkflowReconcileResult() {
      @Override
      public Map<DependentResource, Exception> getErroredDependents() {
        return (Map) errors;
      }

      @Override
      public void throwAggregateExceptionIfErrorsPresent() {
        if (!errors.isEmpty()) {
          throw new AggregatedOperatorException("workflow failed", (Map) Map.of("dependent", errors.values()
              .iterator().next()));
        }
      }
    };
  }

  /** The parts of JOSDK's context the verdict and the conditions read: the handed-over plan and the informers' cache. */
  @SuppressWarnings("unchecked")
  private Context<WorkerService> context(AutoscalerPlan plan) {
    Map<Object, Object> values = new HashMap<>(Map.of(AutoscalerPlan.class, plan));
    ManagedWorkflowAndDependentResourceContext managed = (ManagedWorkflowAndDependentResourceContext) Proxy
        .newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ManagedWorkflowAndDependentResourceContext.class},
            (proxy, method, args) -> switch (method.getName()) {
              case "getMandatory" -> values.get(args[0]);
              case "get" -> Optional.ofNullable(values.get(args[0]));
              case "put" -> values.put(args[0], args[1]);
              default -> throw new UnsupportedOperationException(method.getName());
            });
    return (Context<WorkerService>) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Context.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "managedWorkflowAndDependentResourceContext" -> managed;
          case "getSecondaryResourcesAsStream" -> args[0] == ScaledObject.class ? cached.stream() : Stream.empty();
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }
}
