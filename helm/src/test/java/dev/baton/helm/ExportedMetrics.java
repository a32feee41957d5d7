package dev.baton.helm;

import dev.baton.runtime.store.RunningSteps;
import dev.baton.contract.EventResult;
import dev.baton.operator.monitoring.OperatorMetrics;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.InstanceStore.StatusCount;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import java.util.Map;

/**
 * What the runtime and the operator really export, as Prometheus scrapes it: their metric classes with every meter
 * touched (a meter appears in a scrape only once it has a value). The dashboard and the alerts may query nothing else.
 */
final class ExportedMetrics {

  private ExportedMetrics() {}

  static String scrape() {
    return runtime().scrape() + operator().scrape();
  }

  private static RuntimeMetrics runtime() {
    RuntimeMetrics m = new RuntimeMetrics();
    m.eventApplied("w", "s", EventResult.SUCCESS, 12);
    m.duplicateIgnored("w");
    m.staleIgnored("w");
    m.foreignIgnored("w");
    m.parked("w", RuntimeMetrics.ParkReason.values()[0]);
    m.instanceStarted("w");
    m.stepTimedOut("w");
    m.outboxPublished(1);
    m.outboxUnroutable("x.command.topic.ex", 1);
    m.instanceCounts(List.of(new StatusCount("default", "w", "RUNNING", 1)));
    m.outboxBacklog(1, 0.5);
    m.dependencies(() -> true, () -> true);
    m.runningSteps(List.of(new RunningSteps.Group("default", "w", "s", 1, 2.0, 0.1)));
    return m;
  }

  private static OperatorMetrics operator() {
    OperatorMetrics m = new OperatorMetrics();
    m.deadLetters("payment", "q.dlx.payment.pay", 1);
    // JOSDK's reconciliation meters, as the operator's controllers drive them
    ConfigMap resource = new ConfigMap();
    resource.setMetadata(new ObjectMetaBuilder().withName("x").withNamespace("default").build());
    m.josdk().failedReconciliation(resource, new IllegalStateException("test"), Map.of());
    return m;
  }
}
