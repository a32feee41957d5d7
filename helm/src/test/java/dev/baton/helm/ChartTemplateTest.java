package dev.baton.helm;

import static dev.baton.helm.Rendered.container;
import static dev.baton.helm.Rendered.env;
import static dev.baton.helm.Rendered.plainValues;
import static dev.baton.helm.Rendered.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.contract.settings.LogFormat;
import dev.baton.contract.settings.SettingsReader;
import dev.baton.operator.OperatorSettings;
import dev.baton.runtime.app.RuntimeSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code helm template} with each value set: the fields that matter, read from the parsed objects. */
class ChartTemplateTest {

  /** Every variable either component reads a credential from. */
  private static final Pattern CREDENTIAL = Pattern.compile(".*(PASSWORD|USERNAME|_USER|_URI|TOKEN)$");
  /** The runtime API's Secret the chart makes in token mode when runtime.apiToken.existingSecret is empty. */
  private static final String API_SECRET = Chart.RELEASE + "-runtime-api";
  private static final Map<String, Object> TOKEN_MODE = Map.of("runtime.auth.mode", "token");

  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void credentialsReachPodsOnlyBySecretReference(ValueSet values) {
    Rendered chart = Chart.template(values);
    for (Deployment deployment : chart.all(Deployment.class)) {
      for (EnvVar var : container(deployment).getEnv()) {
        if (CREDENTIAL.matcher(var.getName()).matches()) {
          assertThat(var.getValue()).as("%s in %s must not be a plain value", var.getName(),
              deployment.getMetadata().getName()).isNull();
          assertThat(var.getValueFrom().getSecretKeyRef()).as("%s comes from a Secret", var.getName()).isNotNull();
        }
      }
      // Whatever the name of the variable: no quick-start secret value is ever written into a Deployment.
      assertThat(deployment.toString()).doesNotContain("s3cret");
    }
  }

  /** The processes read their settings strictly (a bad value stops the start): the chart must render none. */
  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void everyPlainValueIsOneTheProcessesAccept(ValueSet values) {
    Rendered chart = Chart.template(values);
    Map<String, String> operator = plainValues(chart.operator());
    assertThat(OperatorSettings.fromEnvironment(operator).managementUrl()).isNotBlank();
    assertThat(SettingsReader.read(operator, LogFormat::read)).isNotNull();
    chart.find(Deployment.class, Chart.RELEASE + "-runtime").map(Rendered::plainValues).ifPresent(runtime -> {
      assertThat(RuntimeSettings.fromEnvironment(runtime).httpPort()).isPositive();
      assertThat(SettingsReader.read(runtime, LogFormat::read)).isNotNull();
    });
  }

  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void everySecretReferenceNamesASecretThatIsRenderedOrGiven(ValueSet values) {
    Rendered chart = Chart.template(values);
    for (Deployment deployment : chart.all(Deployment.class)) {
      for (EnvVar var : container(deployment).getEnv()) {
        if (var.getValueFrom() == null || var.getValueFrom().getSecretKeyRef() == null) {
          continue;
        }
        SecretKeySelector ref = var.getValueFrom().getSecretKeyRef();
        String keptByOperator = Optional.ofNullable(env(chart.operator()).get("BATON_RUNTIME_CREDENTIALS_SECRET"))
            .map(EnvVar::getValue).orElse("");
        if (keptByOperator.equals(Chart.NAMESPACE + "/" + ref.getName())) {
          // The operator writes username, password and uri into the runtime's broker Secret.
          assertThat(ref.getKey()).isIn("username", "password", "uri");
          continue;
        }
        String tokensByOperator = Optional.ofNullable(env(chart.operator()).get("BATON_RUNTIME_API_SECRET"))
            .map(EnvVar::getValue).orElse("");
        if (tokensByOperator.equals(Chart.NAMESPACE + "/" + ref.getName())) {
          // The operator makes the runtime's API tokens under the keys it is told.
          assertThat(ref.getKey()).isIn(Rendered.value(chart.operator(), "BATON_RUNTIME_API_TOKEN_KEY"),
              env(chart.operator()).containsKey("BATON_RUNTIME_API_READ_TOKEN_KEY")
                  ? Rendered.value(chart.operator(), "BATON_RUNTIME_API_READ_TOKEN_KEY") : null);
          continue;
        }
        chart.find(Secret.class, ref.getName()).ifPresentOrElse(
            secret -> assertThat(secret.getData()).as("Secret %s has key %s for %s", ref.getName(), ref.getKey(),
                var.getName()).containsKey(ref.getKey()),
            () -> assertThat(values).as("%s refers to Secret %s, which the chart does not create", var.getName(),
                ref.getName()).isEqualTo(ValueSet.EXISTING_SECRETS));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void podsAreHardened(ValueSet values) {
    for (Deployment deployment : Chart.template(values).all(Deployment.class)) {
      String name = deployment.getMetadata().getName();
      PodSpec pod = deployment.getSpec().getTemplate().getSpec();
      assertThat(pod.getSecurityContext().getRunAsNonRoot()).as("%s runAsNonRoot", name).isTrue();
      assertThat(pod.getSecurityContext().getRunAsUser()).as("%s runAsUser (the image's user)", name).isEqualTo(10001L);
      assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
      Container c = container(deployment);
      assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).as("%s readOnlyRootFilesystem", name).isTrue();
      assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).as("%s allowPrivilegeEscalation", name).isFalse();
      assertThat(c.getSecurityContext().getRunAsNonRoot()).isTrue();
      assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
      assertThat(c.getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
      assertThat(c.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
      // The JVM writes to /tmp (perf data, temp files): an emptyDir, since the root filesystem is read-only.
      assertThat(c.getVolumeMounts()).anySatisfy(m -> {
        assertThat(m.getMountPath()).isEqualTo("/tmp");
        assertThat(pod.getVolumes()).anySatisfy(v -> {
          assertThat(v.getName()).isEqualTo(m.getName());
          assertThat(v.getEmptyDir()).isNotNull();
        });
      });
      assertThat(c.getResources().getRequests()).as("%s requests", name).containsKeys("cpu", "memory");
      assertThat(c.getResources().getLimits()).as("%s limits", name).containsKey("memory");
      assertThat(pod.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
      assertThat(pod.getHostPID()).isNotEqualTo(Boolean.TRUE);
    }
  }

  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void selectorsMatchTheirPods(ValueSet values) {
    Rendered chart = Chart.template(values);
    for (Deployment deployment : chart.all(Deployment.class)) {
      assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
          .containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());
    }
    for (Service service : chart.all(Service.class)) {
      assertThat(chart.all(Deployment.class)).as("a Deployment behind Service %s", service.getMetadata().getName())
          .anySatisfy(d -> assertThat(d.getSpec().getTemplate().getMetadata().getLabels())
              .containsAllEntriesOf(service.getSpec().getSelector()));
    }
    for (GenericKubernetesResource monitor : chart.generic("ServiceMonitor")) {
      Map<String, Object> selector = monitor.get("spec", "selector", "matchLabels");
      assertThat(chart.all(Service.class)).as("a Service selected by ServiceMonitor %s", monitor.getMetadata().getName())
          .anySatisfy(s -> assertThat(s.getMetadata().getLabels()).containsAllEntriesOf(strings(selector)));
    }
  }

  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void everyObjectIsLabelledAndNamespacedAsExpected(ValueSet values) {
    for (HasMetadata o : Chart.template(values).objects()) {
      assertThat(o.getMetadata().getLabels()).as("labels of %s/%s", o.getKind(), o.getMetadata().getName())
          .containsEntry("app.kubernetes.io/instance", Chart.RELEASE)
          .containsEntry("app.kubernetes.io/managed-by", "Helm")
          .containsKey("app.kubernetes.io/component");
      switch (o.getKind()) {
        case "ClusterRole", "ClusterRoleBinding" -> assertThat(o.getMetadata().getNamespace()).isNull();
        case "Role", "RoleBinding", "ServiceMonitor", "PodMonitor", "ConfigMap" -> assertThat(o.getMetadata().getNamespace()).isNotBlank();
        default -> assertThat(o.getMetadata().getNamespace()).as("namespace of %s/%s", o.getKind(),
            o.getMetadata().getName()).isEqualTo(Chart.NAMESPACE);
      }
    }
  }

  @Test
  void defaults() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS);

    assertThat(chart.all(ServiceAccount.class)).extracting(sa -> sa.getMetadata().getName())
        .containsExactlyInAnyOrder("baton-operator", "baton-runtime");
    assertThat(chart.ofKind("ServiceMonitor")).as("no ServiceMonitor unless enabled").isEmpty();
    assertThat(chart.all(Secret.class)).as("the runtime's broker Secret is the operator's to keep; no API token")
        .extracting(s -> s.getMetadata().getName())
        .containsExactlyInAnyOrder("baton-rabbitmq-admin", "baton-runtime-database");

    Deployment operator = chart.operator();
    assertThat(container(operator).getImage()).isEqualTo("baton-operator:0.1.0");
    assertThat(operator.getSpec().getReplicas()).isEqualTo(1);
    assertThat(operator.getSpec().getStrategy().getType()).as("leader election: a new pod waits for the Lease")
        .isEqualTo("RollingUpdate");
    assertThat(operator.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("baton-operator");
    assertThat(env(operator).keySet()).containsExactly("BATON_RABBITMQ_MANAGEMENT_URL", "BATON_RABBITMQ_USERNAME",
        "BATON_RABBITMQ_PASSWORD", "BATON_RABBITMQ_HOST", "BATON_RABBITMQ_PORT", "BATON_RABBITMQ_VHOST",
        "BATON_USER_PREFIX", "BATON_RESYNC", "BATON_SERVER_SIDE_APPLY", "BATON_RUNTIME_URL", "BATON_COUNTS_INTERVAL",
        "BATON_RUNTIME_TOKEN_PATH", "BATON_RUNTIME_CREDENTIALS_SECRET", "BATON_LEADER_ELECTION",
        "BATON_LEADER_ELECTION_NAMESPACE", "BATON_LEADER_ELECTION_LEASE", "BATON_OPERATOR_HTTP_PORT",
        "BATON_LOG_FORMAT", "JAVA_TOOL_OPTIONS");
    assertSecretRef(operator, "BATON_RABBITMQ_USERNAME", "baton-rabbitmq-admin", "username");
    assertSecretRef(operator, "BATON_RABBITMQ_PASSWORD", "baton-rabbitmq-admin", "password");
    assertThat(value(operator, "BATON_SERVER_SIDE_APPLY")).isEqualTo("true");
    assertThat(value(operator, "BATON_RABBITMQ_MANAGEMENT_URL")).isEqualTo("http://rabbitmq.rabbitmq.svc:15672/api/");
    assertThat(value(operator, "BATON_RABBITMQ_PORT")).isEqualTo("5672");
    assertThat(value(operator, "BATON_RABBITMQ_VHOST")).isEqualTo("/");
    assertThat(value(operator, "BATON_USER_PREFIX")).isEqualTo("baton-");
    assertThat(value(operator, "BATON_RESYNC")).isEqualTo("60s");
    assertThat(value(operator, "BATON_RUNTIME_URL")).isEqualTo("http://baton-runtime.baton-system.svc:8080");
    assertThat(value(operator, "BATON_RUNTIME_CREDENTIALS_SECRET")).isEqualTo("baton-system/baton-runtime-rabbitmq");
    assertThat(value(operator, "BATON_LEADER_ELECTION")).isEqualTo("true");
    assertThat(value(operator, "BATON_LEADER_ELECTION_NAMESPACE")).isEqualTo(Chart.NAMESPACE);
    assertThat(value(operator, "BATON_LEADER_ELECTION_LEASE")).isEqualTo("baton-operator");
    assertThat(value(operator, "BATON_OPERATOR_HTTP_PORT")).isEqualTo("8081");
    assertThat(value(operator, "BATON_LOG_FORMAT")).isEqualTo("text");
    assertServesHttp(operator, 8081, "/healthz", "/readyz");
    assertThat(chart.get(Service.class, "baton-operator").getSpec().getPorts()).extracting(ServicePort::getPort)
        .containsExactly(8081);

    Deployment runtime = chart.runtime();
    assertThat(container(runtime).getImage()).isEqualTo("baton-runtime:0.1.0");
    assertThat(runtime.getSpec().getReplicas()).isEqualTo(2);
    assertThat(runtime.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("baton-runtime");
    assertThat(value(runtime, "BATON_HTTP_HOST")).as("listens beyond loopback").isEqualTo("0.0.0.0");
    assertThat(value(runtime, "BATON_HTTP_PORT")).isEqualTo("8080");
    assertThat(value(runtime, "BATON_DATABASE_URL")).startsWith("jdbc:postgresql://");
    assertThat(value(runtime, "BATON_DATABASE_CREATE")).isEqualTo("false");
    assertThat(value(runtime, "BATON_REQUIRE_READY")).isEqualTo("true");
    assertThat(value(runtime, "BATON_AUTH")).isEqualTo("kubernetes");
    assertSecretRef(runtime, "BATON_DATABASE_USERNAME", "baton-runtime-database", "username");
    assertSecretRef(runtime, "BATON_DATABASE_PASSWORD", "baton-runtime-database", "password");
    assertSecretRef(runtime, "BATON_RABBITMQ_URI", "baton-runtime-rabbitmq", "uri");
    assertThat(env(runtime)).doesNotContainKeys("BATON_RABBITMQ_USERNAME", "BATON_RABBITMQ_PASSWORD",
        "BATON_NAMESPACES", "BATON_API_TOKEN", "BATON_API_READ_TOKEN", "BATON_AUTH_AUDIENCES",
        "BATON_HTTP_TRUSTED_PROXY");
    assertThat(value(runtime, "BATON_LOG_FORMAT")).isEqualTo("text");
    // Liveness asks only whether the process answers: a database or broker outage must not restart every pod.
    assertServesHttp(runtime, 8080, "/livez", "/healthz");

    Service service = chart.get(Service.class, "baton-runtime");
    assertThat(service.getSpec().getType()).isEqualTo("ClusterIP");
    assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> {
      assertThat(p.getName()).isEqualTo("http");
      assertThat(p.getPort()).isEqualTo(8080);
      assertThat(p.getTargetPort().getStrVal()).isEqualTo("http");
    });
    assertThat(chart.get(PodDisruptionBudget.class, "baton-runtime").getSpec().getMinAvailable().getIntVal())
        .isEqualTo(1);
  }

  @Test
  void quickStartCreatesTheSecretsFromValues() {
    Rendered chart = Chart.template(ValueSet.QUICK_START);

    assertThat(decoded(chart.get(Secret.class, "baton-rabbitmq-admin")))
        .containsExactlyInAnyOrderEntriesOf(Map.of("username", "baton-admin", "password", "s3cret-admin-password"));
    assertThat(decoded(chart.get(Secret.class, "baton-runtime-database")))
        .containsExactlyInAnyOrderEntriesOf(Map.of("username", "baton", "password", "s3cret-db-password"));
    assertThat(decoded(chart.get(Secret.class, "baton-runtime-rabbitmq"))).containsExactlyEntriesOf(
        Map.of("uri", "amqp://baton-runtime:s3cret-amqp-password@my-rabbit.messaging.svc:5672/%2F"));
    assertThat(value(chart.operator(), "BATON_RABBITMQ_HOST")).isEqualTo("my-rabbit.messaging.svc");
    assertThat(env(chart.operator())).as("the runtime's broker URI is given: the operator keeps no user for it")
        .doesNotContainKey("BATON_RUNTIME_CREDENTIALS_SECRET");
    assertThat(value(chart.runtime(), "BATON_DATABASE_URL")).isEqualTo("jdbc:postgresql://pg.data.svc:5432/baton");
    // Pods restart when a chart-made Secret changes.
    String checksum = chart.operator().getSpec().getTemplate().getMetadata().getAnnotations().get("checksum/secrets");
    assertThat(checksum).isNotBlank()
        .isNotEqualTo(Chart.template(ValueSet.DEFAULTS).operator().getSpec().getTemplate().getMetadata()
            .getAnnotations().get("checksum/secrets"));
  }

  @Test
  void existingSecretsAreReferencedWithTheirKeysAndNoSecretIsCreated() {
    Rendered chart = Chart.template(ValueSet.EXISTING_SECRETS);

    assertThat(chart.all(Secret.class)).isEmpty();
    assertSecretRef(chart.operator(), "BATON_RABBITMQ_USERNAME", "rabbitmq-admin", "admin-user");
    assertSecretRef(chart.operator(), "BATON_RABBITMQ_PASSWORD", "rabbitmq-admin", "admin-pass");
    assertSecretRef(chart.runtime(), "BATON_DATABASE_USERNAME", "baton-db", "db-user");
    assertSecretRef(chart.runtime(), "BATON_DATABASE_PASSWORD", "baton-db", "db-pass");
    assertSecretRef(chart.runtime(), "BATON_RABBITMQ_URI", "baton-runtime-broker", "amqp-uri");
    assertSecretRef(chart.runtime(), "BATON_RABBITMQ_USERNAME", "baton-runtime-broker", "amqp-user");
    assertSecretRef(chart.runtime(), "BATON_RABBITMQ_PASSWORD", "baton-runtime-broker", "amqp-pass");
    assertSecretRef(chart.runtime(), "BATON_API_TOKEN", "baton-runtime-api-tokens", "api-token");
    assertSecretRef(chart.runtime(), "BATON_API_READ_TOKEN", "baton-runtime-api-tokens", "api-read-token");
    assertSecretRef(chart.operator(), "BATON_RUNTIME_TOKEN", "baton-runtime-api-tokens", "api-token");
  }

  @Test
  void watchNamespacesAreToldToBothComponents() {
    Rendered chart = Chart.template(ValueSet.WATCH_NAMESPACES);

    assertThat(value(chart.operator(), "BATON_NAMESPACES")).isEqualTo("team-a,team-b");
    assertThat(value(chart.runtime(), "BATON_NAMESPACES")).isEqualTo("team-a,team-b");
  }

  @Test
  void tenancyRulesReachTheOperatorOnlyWhenSet() {
    assertThat(env(Chart.template(ValueSet.DEFAULTS).operator())).doesNotContainKey("BATON_TENANCY");
    assertThat(value(Chart.template(ValueSet.DEFAULTS, Map.of("operator.tenancy", "shop=cart")).operator(),
        "BATON_TENANCY")).isEqualTo("shop=cart");
  }

  @Test
  void theOperatorDeclaresWhereTheWorkersConnectUnlessAnAmqpUrlIsSet() {
    assertThat(env(Chart.template(ValueSet.DEFAULTS).operator())).doesNotContainKey("BATON_OPERATOR_AMQP_URL");
    assertThat(value(Chart.template(ValueSet.DEFAULTS, Map.of("operator.amqpUrl", "amqps://rabbitmq.internal:5671"))
        .operator(), "BATON_OPERATOR_AMQP_URL")).isEqualTo("amqps://rabbitmq.internal:5671");
  }

  @Test
  void tenancyStaysClosedUnlessTheChartOpensIt() {
    assertThat(env(Chart.template(ValueSet.DEFAULTS).operator())).doesNotContainKey("BATON_TENANCY_OPEN");
    assertThat(env(Chart.template(ValueSet.DEFAULTS, Map.of("operator.tenancyOpen", false)).operator()))
        .doesNotContainKey("BATON_TENANCY_OPEN");
    assertThat(value(Chart.template(ValueSet.DEFAULTS, Map.of("operator.tenancyOpen", true)).operator(),
        "BATON_TENANCY_OPEN")).isEqualTo("true");
  }

  @Test
  void serviceMonitorsOnlyWhenEnabled() {
    for (ValueSet values : ValueSet.values()) {
      if (values != ValueSet.SERVICE_MONITOR) {
        assertThat(Chart.template(values).ofKind("ServiceMonitor")).as("ServiceMonitor with %s", values).isEmpty();
      }
    }
    Rendered chart = Chart.template(ValueSet.SERVICE_MONITOR);
    List<GenericKubernetesResource> monitors = chart.generic("ServiceMonitor");
    assertThat(monitors).extracting(m -> m.getMetadata().getName())
        .containsExactlyInAnyOrder("baton-runtime", "baton-operator");
    for (GenericKubernetesResource monitor : monitors) {
      assertThat(monitor.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
      assertThat(monitor.getMetadata().getNamespace()).isEqualTo("monitoring");
      assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "prometheus");
      List<Map<String, Object>> endpoints = monitor.get("spec", "endpoints");
      assertThat(endpoints).singleElement().satisfies(e -> assertThat(e)
          .containsEntry("port", "http").containsEntry("path", "/metrics").containsEntry("interval", "15s"));
      List<String> namespaces = monitor.get("spec", "namespaceSelector", "matchNames");
      assertThat(namespaces).containsExactly(Chart.NAMESPACE);
    }
    // A read-only API token is set: the runtime's /metrics needs it, the operator's does not.
    assertThat(metricsEndpoint(chart, "baton-runtime")).containsEntry("bearerTokenSecret",
        Map.of("name", API_SECRET, "key", "read-token"));
    assertThat(metricsEndpoint(chart, "baton-operator")).doesNotContainKey("bearerTokenSecret");
    assertThat(value(chart.operator(), "BATON_RUNTIME_API_READ_TOKEN_KEY")).as("the operator makes it")
        .isEqualTo("read-token");
    assertSecretRef(chart.runtime(), "BATON_API_READ_TOKEN", API_SECRET, "read-token");
    // Without one, /metrics stays open and Prometheus sends no token; so it does in kubernetes mode.
    assertThat(metricsEndpoint(Chart.template(ValueSet.SERVICE_MONITOR, Map.of("runtime.apiToken.readTokenKey", "")),
        "baton-runtime")).doesNotContainKey("bearerTokenSecret");
    assertThat(metricsEndpoint(Chart.template(ValueSet.SERVICE_MONITOR, Map.of("runtime.auth.mode", "kubernetes")),
        "baton-runtime")).doesNotContainKey("bearerTokenSecret");
    // The operator's endpoint: env, port, probes and the Service the ServiceMonitor selects.
    Deployment operator = chart.operator();
    assertThat(value(operator, "BATON_OPERATOR_HTTP_PORT")).isEqualTo("9090");
    assertThat(container(operator).getPorts()).singleElement()
        .satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(9090));
    assertThat(container(operator).getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(container(operator).getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(chart.get(Service.class, "baton-operator").getSpec().getPorts()).extracting(ServicePort::getPort)
        .containsExactly(9090);
  }

  @Test
  void extraVolumesMountsAndEnvFromReachBothPodsBesideTheChartsOwn() {
    Map<String, Object> more = new java.util.HashMap<>();
    for (String component : List.of("runtime", "operator")) {
      more.put(component + ".extraVolumes", List.of(Map.of("name", "db-ca", "secret", Map.of("secretName",
          "baton-db-ca"))));
      more.put(component + ".extraVolumeMounts", List.of(Map.of("name", "db-ca", "mountPath", "/etc/baton/db-ca",
          "readOnly", true)));
      more.put(component + ".extraEnvFrom", List.of(Map.of("configMapRef", Map.of("name", "baton-tuning"))));
    }
    Rendered chart = Chart.template(ValueSet.DEFAULTS, more);

    for (Deployment d : List.of(chart.runtime(), chart.operator())) {
      PodSpec pod = d.getSpec().getTemplate().getSpec();
      assertThat(pod.getVolumes()).extracting(v -> v.getName()).contains("tmp", "db-ca");
      assertThat(pod.getVolumes()).filteredOn(v -> v.getName().equals("db-ca")).singleElement()
          .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("baton-db-ca"));
      assertThat(container(d).getVolumeMounts()).extracting(m -> m.getName() + ":" + m.getMountPath())
          .contains("tmp:/tmp", "db-ca:/etc/baton/db-ca");
      assertThat(container(d).getEnvFrom()).singleElement()
          .satisfies(e -> assertThat(e.getConfigMapRef().getName()).isEqualTo("baton-tuning"));
    }
    assertThat(container(Chart.template(ValueSet.DEFAULTS).runtime()).getEnvFrom()).as("none by default").isEmpty();
  }

  @Test
  void replicasImagesAndScheduling() {
    Rendered chart = Chart.template(ValueSet.REPLICAS_AND_IMAGES);

    Deployment operator = chart.operator();
    Deployment runtime = chart.runtime();
    assertThat(container(operator).getImage()).isEqualTo("registry.example.com/baton/operator:1.2.3");
    assertThat(container(operator).getImagePullPolicy()).isEqualTo("Always");
    assertThat(container(runtime).getImage()).isEqualTo("registry.example.com/baton/runtime@sha256:"
        + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    assertThat(runtime.getSpec().getReplicas()).isEqualTo(3);
    assertThat(operator.getSpec().getReplicas()).isEqualTo(1);
    assertThat(value(runtime, "BATON_CONSUMER_THREADS")).isEqualTo("8");
    assertThat(value(runtime, "BATON_LOG_FORMAT")).isEqualTo("json");
    assertThat(value(operator, "BATON_RESYNC")).isEqualTo("2m");
    assertThat(value(operator, "BATON_LOG_FORMAT")).isEqualTo("json");
    assertThat(value(operator, "TZ")).as("extraEnv").isEqualTo("Europe/Paris");
    assertThat(container(runtime).getResources().getLimits().get("memory").toString()).isEqualTo("2Gi");
    for (Deployment d : List.of(operator, runtime)) {
      assertThat(d.getSpec().getTemplate().getSpec().getImagePullSecrets()).singleElement()
          .satisfies(s -> assertThat(s.getName()).isEqualTo("registry-credentials"));
      assertThat(d.getMetadata().getLabels()).containsEntry("team", "platform");
    }
    assertThat(operator.getSpec().getTemplate().getSpec().getNodeSelector()).containsEntry("kubernetes.io/os", "linux");
    assertThat(runtime.getSpec().getTemplate().getSpec().getTopologySpreadConstraints()).hasSize(1);
  }

  @Test
  void serverSideApplyFollowsItsValue() {
    assertThat(value(Chart.template(ValueSet.NO_SERVER_SIDE_APPLY).operator(), "BATON_SERVER_SIDE_APPLY"))
        .isEqualTo("false");
  }

  @Test
  void operatorOnly() {
    Rendered chart = Chart.template(ValueSet.OPERATOR_ONLY);

    assertThat(chart.find(Deployment.class, "baton-runtime")).isEmpty();
    assertThat(chart.all(Service.class)).extracting(s -> s.getMetadata().getName()).containsExactly("baton-operator");
    assertThat(chart.all(Secret.class)).extracting(s -> s.getMetadata().getName())
        .containsExactly("baton-rabbitmq-admin");
    assertThat(chart.all(ServiceAccount.class)).extracting(s -> s.getMetadata().getName())
        .containsExactly("baton-operator");
    assertThat(value(chart.operator(), "BATON_RUNTIME_URL")).isEqualTo("http://baton-runtime.elsewhere.svc:8080");
    assertThat(env(chart.operator())).doesNotContainKeys("BATON_RUNTIME_CREDENTIALS_SECRET", "BATON_RUNTIME_TOKEN");
    assertThat(env(chart.operator())).as("the runtime elsewhere gets the operator's Kubernetes token")
        .containsKey("BATON_RUNTIME_TOKEN_PATH");
  }

  /**
   * In token mode, where the runtime's API token comes from and who gets it: the runtime (BATON_API_TOKEN, and
   * BATON_API_READ_TOKEN with a read-only key) by reference to the Secret, and the operator, which reads live counts
   * with it: by reference to the user's Secret (BATON_RUNTIME_TOKEN), or, without one, the operator is told which
   * Secret to make (BATON_RUNTIME_API_SECRET: random tokens at its first start, RuntimeApiTokens) and sends the token
   * it holds. The chart itself renders no token: the same objects at every `helm template` (GitOpsRenderTest).
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
      # case                           | runtime | existingSecret | tokenKey | readTokenKey | Secret            | operator makes it | operator's reference
      the operator's Secret            | true    | -              | -        | -            | baton-runtime-api | true              | false
      the operator's, read-only key    | true    | -              | -        | read         | baton-runtime-api | true              | false
      the operator's, own key name     | true    | -              | full     | -            | baton-runtime-api | true              | false
      the user's Secret                | true    | mine           | -        | -            | mine              | false             | true
      the user's, read-only key        | true    | mine           | -        | read         | mine              | false             | true
      operator only                    | false   | -              | -        | -            | -                 | false             | false
      operator only, user's Secret     | false   | mine           | -        | -            | mine              | false             | true
      """)
  void runtimeApiToken(String description, boolean runtime, String existingSecret, String tokenKey,
      String readTokenKey, String secret, boolean operatorMakesIt, boolean operatorReference) {
    Map<String, Object> sets = new java.util.LinkedHashMap<>(TOKEN_MODE);
    Optional.ofNullable(existingSecret).ifPresent(v -> sets.put("runtime.apiToken.existingSecret", v));
    Optional.ofNullable(tokenKey).ifPresent(v -> sets.put("runtime.apiToken.tokenKey", v));
    Optional.ofNullable(readTokenKey).ifPresent(v -> sets.put("runtime.apiToken.readTokenKey", v));
    Rendered chart = Chart.template(runtime ? ValueSet.DEFAULTS : ValueSet.OPERATOR_ONLY, sets);
    String key = Optional.ofNullable(tokenKey).orElse("token");

    assertThat(chart.all(Secret.class)).as("no token rendered").extracting(s -> s.getMetadata().getName())
        .doesNotContain(API_SECRET);
    if (operatorMakesIt) {
      assertThat(value(chart.operator(), "BATON_RUNTIME_API_SECRET")).isEqualTo(Chart.NAMESPACE + "/" + secret);
      assertThat(value(chart.operator(), "BATON_RUNTIME_API_TOKEN_KEY")).isEqualTo(key);
      if (readTokenKey == null) {
        assertThat(env(chart.operator())).doesNotContainKey("BATON_RUNTIME_API_READ_TOKEN_KEY");
      } else {
        assertThat(value(chart.operator(), "BATON_RUNTIME_API_READ_TOKEN_KEY")).isEqualTo(readTokenKey);
      }
    } else {
      assertThat(env(chart.operator())).doesNotContainKeys("BATON_RUNTIME_API_SECRET", "BATON_RUNTIME_API_TOKEN_KEY",
          "BATON_RUNTIME_API_READ_TOKEN_KEY");
    }
    if (runtime) {
      assertSecretRef(chart.runtime(), "BATON_API_TOKEN", secret, key);
      if (readTokenKey == null) {
        assertThat(env(chart.runtime())).doesNotContainKey("BATON_API_READ_TOKEN");
      } else {
        assertSecretRef(chart.runtime(), "BATON_API_READ_TOKEN", secret, readTokenKey);
      }
    }
    if (operatorReference) {
      assertSecretRef(chart.operator(), "BATON_RUNTIME_TOKEN", secret, key);
    } else {
      assertThat(env(chart.operator())).doesNotContainKey("BATON_RUNTIME_TOKEN");
    }
  }

  @Test
  void aReadOnlyTokenUnderTheFullTokensKeyIsRefused() {
    assertThatThrownBy(() -> Chart.template(ValueSet.DEFAULTS, Map.of("runtime.apiToken.readTokenKey", "token",
        "runtime.auth.mode", "token"))).hasMessageContaining("readTokenKey must differ from runtime.apiToken.tokenKey");
  }

  @Test
  void operatorWithoutHttpEndpoint() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS, Map.of("operator.http.enabled", false));

    assertThat(value(chart.operator(), "BATON_OPERATOR_HTTP_PORT")).as("0 turns the endpoint off").isEqualTo("0");
    assertThat(container(chart.operator()).getPorts()).isNullOrEmpty();
    assertThat(container(chart.operator()).getLivenessProbe()).isNull();
    assertThat(container(chart.operator()).getReadinessProbe()).isNull();
    assertThat(chart.find(Service.class, "baton-operator")).isEmpty();
  }

  @Test
  void operatorReplicasWithLeaderElection() {
    Deployment operator = Chart.template(ValueSet.DEFAULTS, Map.of("operator.replicas", 2)).operator();

    assertThat(operator.getSpec().getReplicas()).isEqualTo(2);
    assertThat(value(operator, "BATON_LEADER_ELECTION")).isEqualTo("true");
  }

  private static void assertSecretRef(Deployment deployment, String name, String secret, String key) {
    EnvVar var = env(deployment).get(name);
    assertThat(var).as("env %s of %s", name, deployment.getMetadata().getName()).isNotNull();
    assertThat(var.getValue()).as("%s is not a plain value", name).isNull();
    assertThat(var.getValueFrom().getSecretKeyRef().getName()).as("Secret of %s", name).isEqualTo(secret);
    assertThat(var.getValueFrom().getSecretKeyRef().getKey()).as("key of %s", name).isEqualTo(key);
  }

  /** A port named http, the startup probe on /healthz, liveness and readiness on the given paths, all on that port. */
  private static void assertServesHttp(Deployment deployment, int port, String livenessPath, String readinessPath) {
    assertThat(container(deployment).getPorts()).singleElement().satisfies(p -> {
      assertThat(p.getName()).isEqualTo("http");
      assertThat(p.getContainerPort()).isEqualTo(port);
    });
    assertProbe(container(deployment).getStartupProbe(), "/healthz");
    assertProbe(container(deployment).getLivenessProbe(), livenessPath);
    assertProbe(container(deployment).getReadinessProbe(), readinessPath);
  }

  private static void assertProbe(Probe probe, String path) {
    assertThat(probe).isNotNull();
    assertThat(probe.getHttpGet().getPath()).isEqualTo(path);
    assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("http");
  }

  /** The one endpoint of the ServiceMonitor with that name. */
  private static Map<String, Object> metricsEndpoint(Rendered chart, String name) {
    GenericKubernetesResource monitor = chart.generic("ServiceMonitor").stream()
        .filter(m -> m.getMetadata().getName().equals(name)).findFirst().orElseThrow();
    List<Map<String, Object>> endpoints = monitor.get("spec", "endpoints");
    assertThat(endpoints).hasSize(1);
    return endpoints.get(0);
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static Map<String, String> decoded(Secret secret) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    secret.getData().forEach((k, v) -> out.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> strings(Map<String, Object> map) {
    return (Map<String, String>) (Map<String, ?>) map;
  }
}
