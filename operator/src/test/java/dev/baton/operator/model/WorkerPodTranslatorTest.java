package dev.baton.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.DeploymentSettings;
import dev.baton.api.v1alpha1.DisruptionBudgetSettings;
import dev.baton.api.v1alpha1.HealthSettings;
import dev.baton.api.validation.Problem;
import dev.baton.api.validation.Validated;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every pod template field of spec.deployment reaches the worker pod as it was written (one row per field); without
 * security contexts the pod meets the restricted Pod Security Standard; and what Kubernetes would refuse later is
 * refused here, naming the field.
 */
class WorkerPodTranslatorTest {

  /** One field: how the spec sets it, where the pod has it, and a value a user might write. */
  record Row(String field, BiConsumer<DeploymentSettings, Object> set, Function<PodSpec, Object> get, Object value) {
    @Override
    public String toString() {
      return field;
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> Row row(String field, BiConsumer<DeploymentSettings, T> set, Function<PodSpec, Object> get,
      T value) {
    return new Row(field, (d, v) -> set.accept(d, (T) v), get, value);
  }

  private static Container worker(PodSpec pod) {
    return pod.getContainers().get(0);
  }

  private static final Volume DATA = new VolumeBuilder().withName("data").withNewEmptyDir().withMedium("Memory")
      .endEmptyDir().build();
  private static final Probe HEALTH = new ProbeBuilder().withNewHttpGet().withPath("/healthz")
      .withPort(new IntOrString("health")).endHttpGet().withPeriodSeconds(5).withFailureThreshold(6).build();

  static List<Row> rows() {
    return List.of(
        row("image", DeploymentSettings::setImage, p -> worker(p).getImage(), "registry.example/pay:1.2"),
        row("imagePullPolicy", DeploymentSettings::setImagePullPolicy, p -> worker(p).getImagePullPolicy(), "Always"),
        row("resources", DeploymentSettings::setResources, p -> worker(p).getResources(),
            new ResourceRequirementsBuilder().withRequests(Map.of("cpu", new Quantity("100m")))
                .withLimits(Map.of("memory", new Quantity("256Mi"))).build()),
        row("command", DeploymentSettings::setCommand, p -> worker(p).getCommand(), List.of("java", "-jar")),
        row("args", DeploymentSettings::setArgs, p -> worker(p).getArgs(), List.of("/app/worker.jar", "--verbose")),
        row("envFrom", DeploymentSettings::setEnvFrom, p -> worker(p).getEnvFrom(),
            List.of(new EnvFromSourceBuilder().withPrefix("PAY_").withNewConfigMapRef().withName("pay-settings")
                .endConfigMapRef().build())),
        row("volumeMounts", DeploymentSettings::setVolumeMounts, p -> worker(p).getVolumeMounts(),
            List.of(new VolumeMountBuilder().withName("data").withMountPath("/var/cache/pay").withReadOnly(false)
                .build())),
        row("livenessProbe", DeploymentSettings::setLivenessProbe, p -> worker(p).getLivenessProbe(), HEALTH),
        row("readinessProbe", DeploymentSettings::setReadinessProbe, p -> worker(p).getReadinessProbe(),
            new ProbeBuilder().withNewExec().withCommand("cat", "/tmp/ready").endExec().build()),
        row("startupProbe", DeploymentSettings::setStartupProbe, p -> worker(p).getStartupProbe(),
            new ProbeBuilder().withNewTcpSocket().withPort(new IntOrString(8080)).endTcpSocket()
                .withFailureThreshold(30).build()),
        row("securityContext", DeploymentSettings::setSecurityContext, p -> worker(p).getSecurityContext(),
            new SecurityContextBuilder().withReadOnlyRootFilesystem(true).withRunAsUser(10001L).build()),
        row("serviceAccountName", DeploymentSettings::setServiceAccountName, PodSpec::getServiceAccountName,
            "pay-worker"),
        row("imagePullSecrets", DeploymentSettings::setImagePullSecrets, PodSpec::getImagePullSecrets,
            List.of(new LocalObjectReference("registry-credentials"))),
        row("affinity", DeploymentSettings::setAffinity, PodSpec::getAffinity, new AffinityBuilder()
            .withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm()
            .addNewMatchExpression().withKey("kubernetes.io/arch").withOperator("In").withValues("arm64")
            .endMatchExpression().endNodeSelectorTerm().endRequiredDuringSchedulingIgnoredDuringExecution()
            .endNodeAffinity().build()),
        row("tolerations", DeploymentSettings::setTolerations, PodSpec::getTolerations,
            List.of(new TolerationBuilder().withKey("dedicated").withOperator("Equal").withValue("workers")
                .withEffect("NoSchedule").build())),
        row("nodeSelector", DeploymentSettings::setNodeSelector, PodSpec::getNodeSelector, Map.of("pool", "workers")),
        row("topologySpreadConstraints", DeploymentSettings::setTopologySpreadConstraints,
            PodSpec::getTopologySpreadConstraints, List.of(new TopologySpreadConstraintBuilder().withMaxSkew(1)
                .withTopologyKey("topology.kubernetes.io/zone").withWhenUnsatisfiable("ScheduleAnyway")
                .withNewLabelSelector().withMatchLabels(Map.of("baton.dev/worker-service", "pay")).endLabelSelector()
                .build())),
        row("priorityClassName", DeploymentSettings::setPriorityClassName, PodSpec::getPriorityClassName,
            "business-critical"),
        row("volumes", DeploymentSettings::setVolumes, PodSpec::getVolumes, List.of(DATA)),
        row("podSecurityContext", DeploymentSettings::setPodSecurityContext, PodSpec::getSecurityContext,
            new PodSecurityContextBuilder().withRunAsNonRoot(true).withFsGroup(2000L).build()));
  }

  /** Fields of spec.deployment that are not the pod's as written: the Deployment and its other objects take them. */
  private static final List<String> NOT_POD_TEMPLATE =
      List.of("replicas", "env", "podLabels", "podAnnotations", "podDisruptionBudget", "health");

  private static DeploymentSettings valid() {
    DeploymentSettings d = new DeploymentSettings();
    d.setImage("registry.example/pay:1.0");
    d.setVolumes(new ArrayList<>(List.of(DATA)));
    return d;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void eachFieldReachesThePodAsWritten(Row row) {
    DeploymentSettings d = valid();
    row.set().accept(d, row.value());

    Validated<PodSpec> pod = WorkerPodTranslator.fromCrd(d);

    assertThat(pod.isValid()).as(pod::message).isTrue();
    assertThat(row.get().apply(pod.value())).isEqualTo(row.value());
    assertThat(worker(pod.value()).getName()).isEqualTo(WorkerPodTranslator.CONTAINER);
    assertThat(pod.value().getContainers()).hasSize(1);
  }

  @Test
  void theTableHasARowForEveryPodTemplateFieldOfTheSpec() {
    List<String> fields = Arrays.stream(DeploymentSettings.class.getDeclaredFields())
        .filter(f -> !Modifier.isStatic(f.getModifiers())).map(Field::getName)
        .filter(name -> !NOT_POD_TEMPLATE.contains(name)).toList();
    assertThat(rows()).extracting(Row::field).containsExactlyInAnyOrderElementsOf(fields);
  }

  /**
   * spec.deployment.health (opt-in: a worker not on an SDK has no endpoint): a container port named health, and
   * liveness and readiness probes of GET /healthz on it, unless the spec gives its own. Empty cells: none.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
      # case                              | health port | own liveness | own readiness | port | liveness  | readiness
      no health: nothing added            | -           | false        | false         | -    | -         | -
      health: the port and both probes    | 8081        | false        | false         | 8081 | health:12 | health:3
      own liveness kept                   | 8081        | true         | false         | 8081 | own       | health:3
      own readiness kept                  | 9090        | false        | true          | 9090 | health:12 | own
      both probes the spec's              | 8081        | true         | true          | 8081 | own       | own
      no health, own probes as written    | -           | true         | true          | -    | own       | own
      """)
  void theHealthEndpointIsOpenedAndProbedWhenAsked(String what, Integer port, boolean ownLiveness,
      boolean ownReadiness, Integer containerPort, String liveness, String readiness) {
    DeploymentSettings d = valid();
    d.setHealth(port == null ? null : new HealthSettings(port));
    d.setLivenessProbe(ownLiveness ? OWN : null);
    d.setReadinessProbe(ownReadiness ? OWN : null);

    Validated<PodSpec> pod = WorkerPodTranslator.fromCrd(d);

    assertThat(pod.isValid()).as(pod::message).isTrue();
    Container worker = worker(pod.value());
    if (containerPort == null) {
      assertThat(worker.getPorts()).isEmpty();
    } else {
      assertThat(worker.getPorts()).singleElement().satisfies(p -> {
        assertThat(p.getName()).isEqualTo("health");
        assertThat(p.getContainerPort()).isEqualTo(containerPort);
        assertThat(p.getProtocol()).isEqualTo("TCP");
      });
    }
    assertThat(probe(worker.getLivenessProbe())).as("liveness").isEqualTo(liveness);
    assertThat(probe(worker.getReadinessProbe())).as("readiness").isEqualTo(readiness);
  }

  private static final Probe OWN = new ProbeBuilder().withNewExec().withCommand("true").endExec().build();

  /** "own", "-" for none, or "port:failures" of a GET /healthz every 10 s. */
  private static String probe(Probe probe) {
    if (probe == null) {
      return null;
    }
    if (probe.equals(OWN)) {
      return "own";
    }
    assertThat(probe.getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(probe.getPeriodSeconds()).isEqualTo(10);
    return probe.getHttpGet().getPort().getStrVal() + ":" + probe.getFailureThreshold();
  }

  @Test
  void whatTheOperatorAddsToThePodNeverReachesTheSpec() {
    DeploymentSettings d = valid();
    PodSpec pod = WorkerPodTranslator.fromCrd(d).value();
    pod.getVolumes().add(new VolumeBuilder().withName(WorkerPodTranslator.BROKER_CA_VOLUME).build());
    worker(pod).getVolumeMounts().add(new VolumeMountBuilder().withName("x").build());
    assertThat(d.getVolumes()).containsExactly(DATA);
    assertThat(d.getVolumeMounts()).isNull();
  }

  @Test
  void withoutSecurityContextsThePodMeetsTheRestrictedPodSecurityStandard() {
    PodSpec pod = WorkerPodTranslator.fromCrd(valid()).value();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    var container = worker(pod).getSecurityContext();
    assertThat(container.getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(container.getPrivileged()).as("never privileged").isNotEqualTo(Boolean.TRUE);
  }

  static Stream<Arguments> badInput() {
    return Stream.of(
        bad("a mount of a volume that does not exist", d -> d.setVolumeMounts(List.of(mount("cache", "/cache"))),
            "spec.deployment.volumeMounts[0].name 'cache' names no volume of spec.deployment.volumes (data)"),
        bad("a mount without volumes", d -> {
          d.setVolumes(null);
          d.setVolumeMounts(List.of(mount("data", "/data")));
        }, "spec.deployment.volumeMounts[0].name 'data' names no volume of spec.deployment.volumes, which has none"),
        bad("two mounts at one path", d -> d.setVolumeMounts(List.of(mount("data", "/data"), mount("data", "/data/"))),
            "spec.deployment.volumeMounts[1].mountPath '/data/' is used by another mount"),
        bad("a mount at Baton's CA directory", d -> d.setVolumeMounts(List.of(mount("data", "/etc/baton/broker"))),
            "spec.deployment.volumeMounts[0].mountPath '/etc/baton/broker' is Baton's"),
        bad("a mount without a path", d -> d.setVolumeMounts(List.of(mount("data", null))),
            "spec.deployment.volumeMounts[0].mountPath is required"),
        bad("two volumes of one name", d -> d.getVolumes().add(DATA),
            "spec.deployment.volumes[1].name 'data' is used by another volume"),
        bad("a volume of Baton's name", d -> d.getVolumes().add(new VolumeBuilder().withName("baton-broker-ca").build()),
            "spec.deployment.volumes[1].name 'baton-broker-ca' is Baton's"),
        bad("both bounds of a disruption budget", d -> d.setPodDisruptionBudget(new DisruptionBudgetSettings(
            new IntOrString(1), new IntOrString("25%"))),
            "spec.deployment.podDisruptionBudget: set exactly one of minAvailable and maxUnavailable (a "
                + "PodDisruptionBudget takes one or the other, not both)"),
        bad("neither bound of a disruption budget", d -> d.setPodDisruptionBudget(new DisruptionBudgetSettings()),
            "spec.deployment.podDisruptionBudget: set exactly one of minAvailable and maxUnavailable"),
        bad("a probe without a handler", d -> d.setLivenessProbe(new ProbeBuilder().withPeriodSeconds(5).build()),
            "spec.deployment.livenessProbe has no handlers: set exactly one of exec, httpGet, tcpSocket and grpc"),
        bad("a probe with two handlers", d -> d.setStartupProbe(new ProbeBuilder(HEALTH).withNewExec()
            .withCommand("true").endExec().build()), "spec.deployment.startupProbe has 2 handlers"),
        bad("a pull secret without a name", d -> d.setImagePullSecrets(List.of(new LocalObjectReference())),
            "spec.deployment.imagePullSecrets[0].name is required"),
        bad("a health endpoint without a port", d -> d.setHealth(new HealthSettings()),
            "spec.deployment.health.port is required"),
        bad("no image", d -> d.setImage(" "), "spec.deployment.image is required"));
  }

  private static Arguments bad(String what, Consumer<DeploymentSettings> change, String message) {
    return Arguments.of(what, change, message);
  }

  private static VolumeMount mount(String volume, String path) {
    return new VolumeMountBuilder().withName(volume).withMountPath(path).build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInput")
  void badInputIsRefusedNamingTheField(String what, Consumer<DeploymentSettings> change, String message) {
    DeploymentSettings d = valid();
    change.accept(d);

    Validated<PodSpec> pod = WorkerPodTranslator.fromCrd(d);

    assertThat(pod.isValid()).isFalse();
    assertThat(pod.problems()).extracting(Problem::message).singleElement().asString().startsWith(message);
  }
}
