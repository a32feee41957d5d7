package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.operator.model.Tenancy;
import dev.baton.operator.model.WorkerServiceTranslator;
import dev.baton.operator.model.WorkflowDirectory;
import dev.baton.operator.model.WorkflowTranslator;
import dev.baton.operator.status.Reason;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The informers' indexes a pass or an event looks resources up in, instead of walking all of them: who claims a
 * name, who subscribes to or refers to a service, who starts a Workflow as a child. With thousands of resources a walk
 * per pass and per event made the operator's work grow with the square of their number (docs/design.md#drift-and-scale).
 * The informer keeps each index as it applies every change.
 */
final class CacheIndexes {

  /** WorkerServices by the service name they claim under the tenancy rules. */
  static final String SERVICE_CLAIM = "baton.dev/service-claim";
  /** WorkerServices by the services they subscribe to. */
  static final String SUBSCRIBES_TO = "baton.dev/subscribes-to";
  /** Workflows by the name they claim (their orchestrator queue's). */
  static final String WORKFLOW_CLAIM = "baton.dev/workflow-claim";
  /** Workflows by the services their steps use. */
  static final String USES_SERVICE = "baton.dev/uses-service";
  /** Workflows by {@code namespace/name} of the Workflows their child workflow steps start. */
  static final String STARTS = "baton.dev/starts";
  /**
   * Workflows by namespace, of those whose spec another Workflow's change may make valid: refused for a Workflow
   * that does not exist (yet) or as invalid (a cycle through child workflow steps is one).
   */
  static final String WAITS_FOR_PEERS = "baton.dev/waits-for-peers";

  private CacheIndexes() {}

  static void workerServices(IndexerResourceCache<WorkerService> cache, Tenancy tenancy, boolean subscriptions) {
    cache.addIndexers(subscriptions
        ? Map.of(SERVICE_CLAIM, ws -> WorkerServiceTranslator.claim(ws, tenancy).stream().toList(),
            SUBSCRIBES_TO, ws -> List.copyOf(WorkerServiceTranslator.subscribedServices(ws)))
        : Map.of(SERVICE_CLAIM, ws -> WorkerServiceTranslator.claim(ws, tenancy).stream().toList()));
  }

  static void workflows(IndexerResourceCache<Workflow> cache) {
    cache.addIndexers(Map.of(
        WORKFLOW_CLAIM, wf -> WorkflowTranslator.claimedName(wf).stream().toList(),
        USES_SERVICE, WorkflowTranslator::referencedServices,
        STARTS, wf -> WorkflowDirectory.childrenOf(wf).stream().map(child -> key(wf.getMetadata().getNamespace(), child))
            .toList(),
        WAITS_FOR_PEERS, wf -> waitsForPeers(wf) ? List.of(wf.getMetadata().getNamespace()) : List.of()));
  }

  /** The names a WorkerService claims now and held as of its status: a change of it concerns both. */
  static Set<String> serviceNames(WorkerService ws) {
    Set<String> names = new LinkedHashSet<>();
    if (ws.serviceName() != null) {
      names.add(ws.serviceName());
    }
    if (ws.getStatus() != null && ws.getStatus().getService() != null) {
      names.add(ws.getStatus().getService());
    }
    return names;
  }

  /** The resources indexed under any of {@code keys}. */
  static <R extends HasMetadata> Stream<R> lookUp(IndexedResourceCache<R> cache, String index,
      Collection<String> keys) {
    return keys.stream().flatMap(k -> cache.byIndex(index, k).stream());
  }

  /** As a {@link dev.baton.operator.model.NameClaims} reads claimants: the resources indexed under one name. */
  static <R extends HasMetadata> Function<String, Collection<R>> claimants(IndexedResourceCache<R> cache,
      String index) {
    return name -> cache.byIndex(index, name);
  }

  static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  private static boolean waitsForPeers(Workflow wf) {
    return wf.getStatus() != null && wf.getStatus().condition(ConditionTypes.READY)
        .filter(c -> "False".equals(c.getStatus()))
        .map(c -> Reason.MISSING_WORKFLOW.value().equals(c.getReason())
            || Reason.INVALID_SPEC.value().equals(c.getReason()))
        .orElse(false);
  }
}
