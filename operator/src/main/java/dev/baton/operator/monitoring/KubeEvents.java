package dev.baton.operator.monitoring;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records Kubernetes Events (core v1, as {@code kubectl describe} shows them) on Baton resources. Callers decide when
 * (transitions and increases only, never per reconciliation); recording never fails a reconciliation: a refused
 * Event is logged at WARN once, then at DEBUG.
 */
public final class KubeEvents {

  public static final String COMPONENT = "baton-operator";
  public static final String WARNING = "Warning";
  public static final String NORMAL = "Normal";
  private static final int MAX_MESSAGE = 1024;
  private static final Logger LOG = LoggerFactory.getLogger(KubeEvents.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final KubernetesClient client;
  private final Clock clock;
  private final String instance;
  private volatile boolean refused;

  private KubeEvents(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
    this.instance = hostname();
  }

  public static KubeEvents to(KubernetesClient client, Clock clock) {
    return new KubeEvents(client, clock);
  }

  /** Records nothing (unit tests of the status writers). */
  public static KubeEvents none() {
    return new KubeEvents(null, Clock.systemUTC());
  }

  public void warning(HasMetadata involved, String reason, String message) {
    record(involved, WARNING, reason, message);
  }

  /** Expected progress worth telling (a deletion that waits), which {@code kubectl describe} lists with the rest. */
  public void normal(HasMetadata involved, String reason, String message) {
    record(involved, NORMAL, reason, message);
  }

  private void record(HasMetadata involved, String type, String reason, String message) {
    if (client == null) {
      return;
    }
    String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    Event event = new EventBuilder()
        .withNewMetadata()
        // Kubernetes' own naming: the object's name and a unique suffix.
        .withName(involved.getMetadata().getName() + "." + Long.toHexString(RANDOM.nextLong() & Long.MAX_VALUE))
        .withNamespace(involved.getMetadata().getNamespace())
        .endMetadata()
        .withNewInvolvedObject()
        .withApiVersion(involved.getApiVersion())
        .withKind(involved.getKind())
        .withName(involved.getMetadata().getName())
        .withNamespace(involved.getMetadata().getNamespace())
        .withUid(involved.getMetadata().getUid())
        .endInvolvedObject()
        .withType(type)
        .withReason(reason)
        .withMessage(message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE - 3) + "..." : message)
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withCount(1)
        .withNewSource().withComponent(COMPONENT).withHost(instance).endSource()
        .withReportingComponent(COMPONENT)
        .withReportingInstance(instance)
        .build();
    try {
      client.v1().events().inNamespace(involved.getMetadata().getNamespace()).resource(event).create();
      refused = false;
    } catch (KubernetesClientException e) {
      if (!refused) {
        LOG.warn("Could not record Event {} on {} {}/{}: HTTP {} {}", reason, involved.getKind(),
            involved.getMetadata().getNamespace(), involved.getMetadata().getName(), e.getCode(), e.getMessage());
      } else {
        LOG.debug("Could not record Event {}: {}", reason, e.getMessage());
      }
      refused = true;
    }
  }

  private static String hostname() {
    String fromEnv = System.getenv("HOSTNAME");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return COMPONENT;
    }
  }
}
