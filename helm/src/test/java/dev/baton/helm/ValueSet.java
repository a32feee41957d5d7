package dev.baton.helm;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A set of values the chart is tested with: the defaults, or a file in src/test/resources/values/ given to helm
 * with {@code -f}.
 */
enum ValueSet {
  DEFAULTS(null),
  /** Credentials given in plain values: the chart creates the Secrets (quick start). */
  QUICK_START("quick-start.yaml"),
  /** Every credential from a Secret the user manages, with their own key names (GitOps). */
  EXISTING_SECRETS("existing-secrets.yaml"),
  /** Roles in two namespaces instead of ClusterRoles. */
  WATCH_NAMESPACES("watch-namespaces.yaml"),
  /** ServiceMonitors and the PrometheusRule, with the operator's HTTP endpoint on and a read-only API token for the runtime's /metrics. */
  SERVICE_MONITOR("service-monitor.yaml"),
  /** KEDA ScaledObjects managed by the operator. */
  KEDA("keda.yaml"),
  /** Server-side apply off (API servers without it). */
  NO_SERVER_SIDE_APPLY("no-server-side-apply.yaml"),
  /** Three runtime replicas, images from a registry (tag, digest), extra env, JSON logs, pod scheduling. */
  REPLICAS_AND_IMAGES("replicas-and-images.yaml"),
  /** The operator alone. */
  OPERATOR_ONLY("operator-only.yaml");

  private final String fileName;

  ValueSet(String fileName) {
    this.fileName = fileName;
  }

  Path file() {
    return fileName == null ? null : Chart.repoRoot().resolve("helm/src/test/resources/values").resolve(fileName);
  }

  static List<ValueSet> all() {
    return Arrays.asList(values());
  }
}
