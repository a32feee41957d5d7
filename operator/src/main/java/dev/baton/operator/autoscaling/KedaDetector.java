package dev.baton.operator.autoscaling;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the cluster serves KEDA's {@code keda.sh/v1alpha1} ScaledObject and TriggerAuthentication APIs, asked through
 * API discovery (which every authenticated client may read: no RBAC on CRDs needed) at most once per {@code maxAge}.
 * When discovery fails, the last answer stands: a flaky API server must not flip autoscaling on and off.
 */
public final class KedaDetector {

  public static final String GROUP_VERSION = "keda.sh/v1alpha1";
  private static final Set<String> NEEDED = Set.of("scaledobjects", "triggerauthentications");
  private static final Logger LOG = LoggerFactory.getLogger(KedaDetector.class);

  private final Duration maxAge;
  private final Clock clock;
  private boolean installed;
  private Instant checked;

  public KedaDetector(Duration maxAge, Clock clock) {
    this.maxAge = maxAge;
    this.clock = clock;
  }

  /** The last answer, without asking: false until someone asked. */
  public synchronized boolean lastKnown() {
    return installed;
  }

  public synchronized boolean installed(KubernetesClient client) {
    Instant now = clock.instant();
    if (checked == null || !now.isBefore(checked.plus(maxAge))) {
      checked = now;
      try {
        APIResourceList resources = client.getApiResources(GROUP_VERSION);
        Set<String> served = resources == null ? Set.of()
            : resources.getResources().stream().map(APIResource::getName).collect(Collectors.toSet());
        boolean serving = served.containsAll(NEEDED);
        if (serving != installed) {
          LOG.info(serving ? "KEDA is installed ({} serves ScaledObjects): autoscaling WorkerServices get ScaledObjects"
              : "KEDA is not installed ({} not served): WorkerServices with autoscaling keep their spec replicas",
              GROUP_VERSION);
        }
        installed = serving;
      } catch (KubernetesClientException e) {
        LOG.warn("Cannot tell whether KEDA is installed (discovery of {} failed: HTTP {} {}); assuming it {}",
            GROUP_VERSION, e.getCode(), e.getMessage(), installed ? "still is" : "still is not");
      }
    }
    return installed;
  }
}
