package dev.baton.operator.autoscaling;

import dev.baton.api.v1alpha1.AutoscalingSettings;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.topology.ConsumerTopology;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.operator.dependent.Credentials;
import dev.baton.operator.dependent.WorkerResources;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The KEDA objects of an autoscaled WorkerService, built from its spec and plan alone (no cluster access):
 *
 * <ul>
 *   <li>a {@code ScaledObject} named like the Deployment, scaling it between minReplicas and maxReplicas with one
 *       {@code rabbitmq} trigger per command and subscription queue, over the management API ({@code protocol: http},
 *       so unacknowledged messages count too), mode {@code QueueLength}, value = targetQueueDepth;
 *   <li>its {@code TriggerAuthentication}, which takes the trigger's {@code host} from a Secret, so no credentials
 *       appear in the ScaledObject;
 *   <li>that Secret, {@code <name>-autoscaler-credentials}: the management URL with the credentials of a read-only
 *       broker user of its own ({@code <prefix>S.keda}, tag {@code management}, no permission to configure, write or
 *       read any resource: it sees queue statistics, nothing else).
 * </ul>
 *
 * Dependency-free: KEDA's types are untyped below their metadata ({@link ScaledObject}, {@link TriggerAuthentication}),
 * so Baton needs no KEDA library. Owner references
 * and JOSDK's annotations are added by the dependents that write them.
 */
public final class KedaObjects {

  public static final String GROUP = "keda.sh";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = KedaDetector.GROUP_VERSION;
  public static final ResourceDefinitionContext SCALED_OBJECTS = context("ScaledObject", "scaledobjects");
  public static final ResourceDefinitionContext TRIGGER_AUTHENTICATIONS =
      context("TriggerAuthentication", "triggerauthentications");
  /** The Secret key the TriggerAuthentication hands to the trigger as its {@code host} parameter. */
  public static final String HOST_KEY = "host";
  public static final String COMPONENT = "autoscaler";
  private static final String COMPONENT_LABEL = "app.kubernetes.io/component";
  /**
   * What the informers of the KEDA dependents watch: the autoscaling objects of WorkerServices. Someone else's
   * ScaledObject of the same name is not among them and is looked up by name ({@link KedaAutoscaling}).
   */
  public static final String SELECTOR = COMPONENT_LABEL + "=" + COMPONENT + "," + WorkerResources.WORKER_SERVICE_LABEL;

  private KedaObjects() {}

  public static ScaledObject scaledObject(WorkerService ws, ServiceTopology plan, String vhost) {
    AutoscalingSettings a = ws.getSpec().getAutoscaling();
    List<Map<String, Object>> triggers = plan.consumers().stream().map(ConsumerTopology::queue)
        .map(queue -> trigger(ws, queue, vhost, a.getTargetQueueDepth())).toList();
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("scaleTargetRef", Map.of("apiVersion", "apps/v1", "kind", "Deployment",
        "name", WorkerResources.deploymentName(ws)));
    spec.put("minReplicaCount", a.getMinReplicas());
    spec.put("maxReplicaCount", a.getMaxReplicas());
    spec.put("cooldownPeriod", a.getCooldownSeconds());
    spec.put("triggers", triggers);
    return resource(new ScaledObject(), ws, ScaledObject.KIND, WorkerResources.scaledObjectName(ws), spec);
  }

  public static TriggerAuthentication triggerAuthentication(WorkerService ws) {
    Map<String, Object> spec = Map.of("secretTargetRef", List.of(Map.of(
        "parameter", HOST_KEY, "name", WorkerResources.autoscalerSecretName(ws), "key", HOST_KEY)));
    return resource(new TriggerAuthentication(), ws, TriggerAuthentication.KIND,
        WorkerResources.triggerAuthenticationName(ws), spec);
  }

  /** The Secret with the read-only user's credentials and the management URL KEDA connects to. Never logged. */
  public static Secret secret(WorkerService ws, String username, String password, String managementUrl) {
    Map<String, String> data = new LinkedHashMap<>();
    data.put(Credentials.USERNAME, Credentials.base64(username));
    data.put(Credentials.PASSWORD, Credentials.base64(password));
    data.put(HOST_KEY, Credentials.base64(managementHost(managementUrl, username, password)));
    return new SecretBuilder()
        .withNewMetadata()
        .withName(WorkerResources.autoscalerSecretName(ws))
        .withNamespace(ws.getMetadata().getNamespace())
        .withLabels(labels(ws))
        .endMetadata()
        .withType("Opaque")
        .withData(data)
        .build();
  }

  /**
   * The management API's base URL with credentials, as KEDA's rabbitmq scaler takes it with {@code protocol: http}:
   * {@code http://user:password@host:15672/} (the {@code api/} suffix removed; the vhost comes from
   * {@code vhostName}, hence the trailing slash).
   */
  static String managementHost(String managementUrl, String username, String password) {
    URI uri = URI.create(managementUrl);
    String path = uri.getRawPath() == null ? "/" : uri.getRawPath();
    path = path.replaceFirst("api/?$", "");
    if (!path.endsWith("/")) {
      path = path + "/";
    }
    return uri.getScheme() + "://" + Credentials.encode(username) + ":" + Credentials.encode(password) + "@"
        + uri.getRawAuthority().replaceFirst("^.*@", "") + path;
  }

  private static Map<String, Object> trigger(WorkerService ws, String queue, String vhost, int targetDepth) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("protocol", "http");
    metadata.put("mode", "QueueLength");
    metadata.put("value", String.valueOf(targetDepth));
    metadata.put("queueName", queue);
    metadata.put("vhostName", vhost);
    Map<String, Object> trigger = new LinkedHashMap<>();
    trigger.put("type", "rabbitmq");
    trigger.put("metadata", metadata);
    trigger.put("authenticationRef", Map.of("name", WorkerResources.triggerAuthenticationName(ws)));
    return trigger;
  }

  private static <R extends GenericKubernetesResource> R resource(R r, WorkerService ws, String kind, String name,
      Map<String, Object> spec) {
    r.setApiVersion(API_VERSION);
    r.setKind(kind);
    r.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(ws.getMetadata().getNamespace())
        .withLabels(labels(ws)).build());
    r.setAdditionalProperty("spec", spec);
    return r;
  }

  /** Not the managed-by label of the worker's Secret and Deployment: those informers need not see these objects. */
  static Map<String, String> labels(WorkerService ws) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(WorkerResources.NAME_LABEL, ws.serviceName());
    labels.put(COMPONENT_LABEL, COMPONENT);
    labels.put(WorkerResources.WORKER_SERVICE_LABEL, ws.getMetadata().getName());
    return labels;
  }

  private static ResourceDefinitionContext context(String kind, String plural) {
    return new ResourceDefinitionContext.Builder().withGroup(GROUP).withVersion(VERSION).withKind(kind)
        .withPlural(plural).withNamespaced(true).build();
  }
}
