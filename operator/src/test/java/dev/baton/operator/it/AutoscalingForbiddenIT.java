package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.autoscaling;
import static dev.baton.operator.it.Crs.deployment;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.WorkerService;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * KEDA is installed but the operator's RBAC does not cover keda.sh (the Helm chart grants it only with
 * autoscaling.keda.enabled): a condition says how to grant it, and the Deployment keeps its spec replicas.
 */
class AutoscalingForbiddenIT {

  static final String NS = "denied";
  static OperatorFixture f;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("keda-denied", UnaryOperator.identity(), server -> server.expect().post()
        .withPath("/apis/keda.sh/v1alpha1/namespaces/" + NS + "/triggerauthentications")
        .andReturn(403, new StatusBuilder().withStatus("Failure").withReason("Forbidden").withCode(403)
            .withMessage("triggerauthentications.keda.sh is forbidden").build())
        .always(), UnaryOperator.identity());
    AutoscalingIT.installKeda(f);
    f.create(workerService(NS, "payment", spec -> {
      spec.setDeployment(deployment("example/payment:1.0", 2));
      spec.setAutoscaling(autoscaling(1, 10, 50));
    }, "pay"));
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  void aForbiddenKedaApiBecomesAConditionAndTheSpecReplicasStay() {
    Condition c = f.awaitCondition(WorkerService.class, NS, "payment", ConditionTypes.AUTOSCALING_READY, false,
        "KedaForbidden");
    assertThat(c.getMessage()).contains("autoscaling.keda.enabled").contains("spec.deployment.replicas (2)");
    await().atMost(WITHIN).until(() -> f.get(Deployment.class, NS, "payment") != null);
    assertThat(f.get(Deployment.class, NS, "payment").getSpec().getReplicas()).isEqualTo(2);
  }
}
