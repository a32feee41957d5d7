package dev.baton.operator.autoscaling;

import static dev.baton.operator.it.Crs.autoscaling;
import static dev.baton.operator.it.Crs.deployment;
import static dev.baton.operator.it.Crs.workerService;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.operator.model.WorkerServiceTranslator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KedaDependentTest {

  final WorkerService ws = workerService("shop", "payment", spec -> {
    spec.setDeployment(deployment("example/payment:1.0", 2));
    spec.setAutoscaling(autoscaling(1, 10, 50));
  }, "pay");
  final ServiceTopology topology = TopologyPlanner.plan(WorkerServiceTranslator.fromCrd(ws, n -> Optional.empty())
      .value());
  final ScaledObjectDependent scaledObjects = new ScaledObjectDependent();

  KedaDependentTest() {
    ws.getMetadata().setUid("0d9c6e1a-payment");
  }

  @Test
  void whatTheClusterAddedIsNoDifferenceButAChangedValueIs() {
    ScaledObject actual = written();
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = new LinkedHashMap<>((Map<String, Object>) actual.getAdditionalProperties().get("spec"));
    spec.put("pollingInterval", 30);
    actual.setAdditionalProperty("spec", spec);
    actual.getMetadata().getLabels().put("added-by", "someone");
    assertThat(matches(actual)).isTrue();

    spec.put("minReplicaCount", 2);
    assertThat(matches(actual)).isFalse();
  }

  @Test
  void anObjectWithoutJosdksAnnotationsIsUpdatedToCarryThem() {
    ScaledObject actual = written();
    actual.getMetadata().getAnnotations().clear();
    assertThat(matches(actual)).isFalse();
  }

  /** As the operator writes it: with the WorkerService as owner and JOSDK's annotations, which a match adds. */
  private ScaledObject written() {
    ScaledObject r = KedaObjects.scaledObject(ws, topology, "/");
    scaledObjects.match(r, r, ws, null);
    assertThat(r.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(ws.getMetadata().getUid()));
    return r;
  }

  private boolean matches(ScaledObject actual) {
    return scaledObjects.match(actual, KedaObjects.scaledObject(ws, topology, "/"), ws, null).matched();
  }
}
