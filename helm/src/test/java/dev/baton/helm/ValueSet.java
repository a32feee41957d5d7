package dev.baton.helm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
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
  /** Every credential from a Secret the user manages, with their own key names (GitOps), static API tokens included. */
  EXISTING_SECRETS("existing-secrets.yaml"),
  /** Roles in two namespaces instead of ClusterRoles. */
  WATCH_NAMESPACES("watch-namespaces.yaml"),
  /**
   * ServiceMonitors and the PrometheusRule, with the operator's HTTP endpoint on and, in token mode, a read-only API
   * token for the runtime's /metrics.
   */
  SERVICE_MONITOR("service-monitor.yaml"),
  /** KEDA ScaledObjects managed by the operator. */
  KEDA("keda.yaml"),
  /** Server-side apply off (API servers without it). */
  NO_SERVER_SIDE_APPLY("no-server-side-apply.yaml"),
  /** Three runtime replicas, images from a registry (tag, digest), extra env, JSON logs, pod scheduling. */
  REPLICAS_AND_IMAGES("replicas-and-images.yaml"),
  /** The operator alone. */
  OPERATOR_ONLY("operator-only.yaml"),
  /** Kubernetes tokens made for Baton only (runtime.auth.audiences), the runtime behind an ingress (trustedProxy). */
  AUDIENCES("audiences.yaml");

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final String fileName;

  ValueSet(String fileName) {
    this.fileName = fileName;
  }

  Path file() {
    return fileName == null ? null : Chart.repoRoot().resolve("helm/src/test/resources/values").resolve(fileName);
  }

  /** Whether callers of the runtime show Kubernetes tokens: the chart's default, unless the file says token mode. */
  boolean kubernetesAuth() {
    try {
      return file() == null || !"token".equals(YAML.readTree(file().toFile()).at("/runtime/auth/mode").asText());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<ValueSet> all() {
    return Arrays.asList(values());
  }
}
