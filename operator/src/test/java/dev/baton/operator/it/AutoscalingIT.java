package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.autoscaling;
import static dev.baton.operator.it.Crs.deployment;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.http.client.Client;
import com.rabbitmq.http.client.ClientParameters;
import com.rabbitmq.http.client.domain.UserPermissions;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.autoscaling.KedaObjects;
import dev.baton.sandbox.LocalServices;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * spec.autoscaling becomes a KEDA ScaledObject over the management API (unacknowledged messages count), with the
 * credentials of a read-only broker user behind a TriggerAuthentication; without KEDA a condition says what to
 * install, and the Deployment keeps its spec replicas. While KEDA scales, the operator leaves the replicas alone.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AutoscalingIT {

  static final String NS = "scale";
  static OperatorFixture f;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("keda");
    f.create(workerService(NS, "payment", spec -> {
      spec.setDeployment(deployment("example/payment:1.0", 2));
      spec.setAutoscaling(autoscaling(1, 10, 50));
    }, "pay", "refund"));
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  @Order(1)
  void withoutKedaAConditionSaysWhatToInstallAndReadyIsUnaffected() {
    Condition c = f.awaitCondition(WorkerService.class, NS, "payment", ConditionTypes.AUTOSCALING_READY, false,
        "KedaNotInstalled");
    assertThat(c.getMessage()).contains("install KEDA").contains("spec.deployment.replicas (2)");
    await().atMost(WITHIN).until(() -> f.get(Deployment.class, NS, "payment") != null);
    assertThat(f.get(Deployment.class, NS, "payment").getSpec().getReplicas()).isEqualTo(2);
    f.client.apps().deployments().inNamespace(NS).withName("payment").editStatus(d -> {
      d.setStatus(new DeploymentStatusBuilder().withReplicas(2).withAvailableReplicas(2).build());
      return d;
    });
    f.awaitReady(WorkerService.class, NS, "payment", true, "Ready");
    assertThat(f.client.genericKubernetesResources(KedaObjects.SCALED_OBJECTS).inNamespace(NS).list().getItems())
        .isEmpty();
  }

  @Test
  @Order(2)
  void withKedaAScaledObjectScalesTheDeploymentOnEveryConsumerQueue() throws Exception {
    installKeda();
    Condition c = f.awaitCondition(WorkerService.class, NS, "payment", ConditionTypes.AUTOSCALING_READY, true,
        "ScaledObjectReady");
    assertThat(c.getMessage()).contains("ScaledObject payment").contains("from 1 to 10 replicas");
    f.awaitReady(WorkerService.class, NS, "payment", true, "Ready");

    GenericKubernetesResource so = get(KedaObjects.SCALED_OBJECTS, "payment");
    assertThat(so.getApiVersion()).isEqualTo("keda.sh/v1alpha1");
    assertThat(so.getKind()).isEqualTo("ScaledObject");
    assertThat(so.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(o -> assertThat(o.getKind()).isEqualTo("WorkerService"));
    Map<String, Object> spec = map(so.getAdditionalProperties().get("spec"));
    assertThat(spec.get("scaleTargetRef")).isEqualTo(Map.of("apiVersion", "apps/v1", "kind", "Deployment", "name",
        "payment"));
    assertThat(spec).containsEntry("minReplicaCount", 1).containsEntry("maxReplicaCount", 10)
        .containsEntry("cooldownPeriod", 300);
    List<?> triggers = (List<?>) spec.get("triggers");
    assertThat(triggers).hasSize(2);
    for (int i = 0; i < 2; i++) {
      Map<String, Object> trigger = map(triggers.get(i));
      assertThat(trigger).containsEntry("type", "rabbitmq")
          .containsEntry("authenticationRef", Map.of("name", "payment"));
      assertThat(map(trigger.get("metadata"))).isEqualTo(Map.of("protocol", "http", "mode", "QueueLength",
          "value", "50", "queueName", i == 0 ? "q.payment.pay" : "q.payment.refund", "vhostName", f.vhost.name()));
    }

    GenericKubernetesResource auth = get(KedaObjects.TRIGGER_AUTHENTICATIONS, "payment");
    assertThat(map(auth.getAdditionalProperties().get("spec"))).isEqualTo(Map.of("secretTargetRef", List.of(
        Map.of("parameter", "host", "name", "payment-autoscaler-credentials", "key", "host"))));

    // The credentials are in the Secret only; with them KEDA reads queue statistics and nothing else.
    Map<String, String> secret = TopologyOnTheBrokerIT.decode(f.get(Secret.class, NS, "payment-autoscaler-credentials"));
    String user = f.username("payment") + ".keda";
    assertThat(secret.get("username")).isEqualTo(user);
    URI host = URI.create(secret.get("host"));
    assertThat(host.getScheme()).isEqualTo("http");
    assertThat(host.getPath()).isEqualTo("/");
    assertThat(host.getUserInfo()).isEqualTo(user + ":" + secret.get("password"));
    assertThat(f.client.getKubernetesSerialization().asJson(so)).doesNotContain(secret.get("password"));
    assertThat(f.management.getUser(user).getTags()).containsExactly("management");
    UserPermissions p = f.management.getPermissions(f.vhost.name(), user);
    assertThat(List.of(p.getConfigure(), p.getWrite(), p.getRead())).containsOnly("^$");

    Client asKeda = new Client(new ClientParameters().url(LocalServices.RABBITMQ_MANAGEMENT_URL)
        .username(user).password(secret.get("password")));
    assertThat(asKeda.getQueue(f.vhost.name(), "q.payment.pay")).isNotNull();
    ConnectionFactory cf = new ConnectionFactory();
    cf.setHost(LocalServices.RABBITMQ_HOST);
    cf.setPort(LocalServices.RABBITMQ_PORT);
    cf.setVirtualHost(f.vhost.name());
    cf.setUsername(user);
    cf.setPassword(secret.get("password"));
    try (Connection c2 = cf.newConnection("keda-probe")) {
      Channel ch = c2.createChannel();
      assertThatThrownBy(() -> ch.basicGet("q.payment.pay", false)).rootCause().hasMessageContaining("ACCESS_REFUSED");
    }
  }

  @Test
  @Order(3)
  void theOperatorLeavesTheReplicasToKeda() {
    f.client.apps().deployments().inNamespace(NS).withName("payment").edit(d -> {
      d.getSpec().setReplicas(5);
      return d;
    });
    // Several resyncs pass and the replicas KEDA (here: the test) chose stay.
    await().during(OperatorFixture.RESYNC.multipliedBy(3)).atMost(OperatorFixture.RESYNC.multipliedBy(5))
        .until(() -> f.get(Deployment.class, NS, "payment").getSpec().getReplicas() == 5);
  }

  @Test
  @Order(4)
  void driftIsRepaired() {
    f.client.genericKubernetesResources(KedaObjects.SCALED_OBJECTS).inNamespace(NS).withName("payment").delete();
    f.client.secrets().inNamespace(NS).withName("payment-autoscaler-credentials").delete();
    await().atMost(WITHIN).until(() -> get(KedaObjects.SCALED_OBJECTS, "payment") != null
        && f.get(Secret.class, NS, "payment-autoscaler-credentials") != null);
  }

  @Test
  @Order(5)
  void droppingAutoscalingRemovesTheKedaObjectsAndTheUser() {
    f.edit(WorkerService.class, NS, "payment", ws -> {
      ws.getSpec().setAutoscaling(null);
      return ws;
    });
    await().atMost(WITHIN).until(() -> get(KedaObjects.SCALED_OBJECTS, "payment") == null
        && get(KedaObjects.TRIGGER_AUTHENTICATIONS, "payment") == null
        && f.get(Secret.class, NS, "payment-autoscaler-credentials") == null
        && f.condition(WorkerService.class, NS, "payment", ConditionTypes.AUTOSCALING_READY).isEmpty());
    assertThat(f.management.getUser(f.username("payment") + ".keda")).isNull();
    await().atMost(WITHIN).until(() -> f.get(Deployment.class, NS, "payment").getSpec().getReplicas() == 2);
  }

  @Test
  @Order(6)
  void deletingAnAutoscaledWorkerServiceRemovesItsKedaObjects() {
    f.create(workerService(NS, "shipping", spec -> {
      spec.setDeployment(deployment("example/shipping:1.0", 1));
      spec.setAutoscaling(autoscaling(0, 3, 10));
    }, "ship"));
    f.awaitCondition(WorkerService.class, NS, "shipping", ConditionTypes.AUTOSCALING_READY, true, "ScaledObjectReady");
    assertThat(map(get(KedaObjects.SCALED_OBJECTS, "shipping").getAdditionalProperties().get("spec")))
        .containsEntry("minReplicaCount", 0);
    f.delete(WorkerService.class, NS, "shipping");
    await().atMost(WITHIN).until(() -> f.get(WorkerService.class, NS, "shipping") == null
        && get(KedaObjects.SCALED_OBJECTS, "shipping") == null
        && get(KedaObjects.TRIGGER_AUTHENTICATIONS, "shipping") == null
        && f.get(Secret.class, NS, "shipping-autoscaler-credentials") == null);
    assertThat(f.management.getUser(f.username("shipping") + ".keda")).isNull();
  }

  @Test
  @Order(7)
  void aScaledObjectOfTheSameNameThatIsSomeoneElsesIsNeitherAdoptedNorOverwritten() {
    GenericKubernetesResource theirs = new GenericKubernetesResource();
    theirs.setApiVersion(KedaObjects.API_VERSION);
    theirs.setKind("ScaledObject");
    theirs.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("billing").build());
    theirs.setAdditionalProperties(Map.of("spec", Map.of("scaleTargetRef", Map.of("name", "their-app"))));
    f.client.genericKubernetesResources(KedaObjects.SCALED_OBJECTS).inNamespace(NS).resource(theirs).create();

    f.create(workerService(NS, "billing", spec -> {
      spec.setDeployment(deployment("example/billing:1.0", 1));
      spec.setAutoscaling(autoscaling(1, 3, 10));
    }, "bill"));

    Condition c = f.awaitCondition(WorkerService.class, NS, "billing", ConditionTypes.AUTOSCALING_READY, false,
        "Conflict");
    assertThat(c.getMessage()).contains("ScaledObject billing already exists", "neither adopts nor overwrites");
    await().during(OperatorFixture.RESYNC.multipliedBy(2)).atMost(OperatorFixture.RESYNC.multipliedBy(4))
        .until(() -> map(get(KedaObjects.SCALED_OBJECTS, "billing").getAdditionalProperties().get("spec"))
            .get("scaleTargetRef").equals(Map.of("name", "their-app")));
    assertThat(get(KedaObjects.SCALED_OBJECTS, "billing").getMetadata().getOwnerReferences()).isNullOrEmpty();
  }

  @Test
  @Order(8)
  void anAutoscalerSecretOfTheSameNameThatIsSomeoneElsesIsNeitherAdoptedNorOverwritten() {
    f.client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withNamespace(NS)
        .withName("invoicing-autoscaler-credentials").endMetadata().addToData("host", "dGhlaXJz").build()).create();

    f.create(workerService(NS, "invoicing", spec -> {
      spec.setDeployment(deployment("example/invoicing:1.0", 1));
      spec.setAutoscaling(autoscaling(1, 3, 10));
    }, "invoice"));

    Condition c = f.awaitCondition(WorkerService.class, NS, "invoicing", ConditionTypes.AUTOSCALING_READY, false,
        "Conflict");
    assertThat(c.getMessage()).contains("Secret invoicing-autoscaler-credentials already exists",
        "neither adopts nor overwrites");
    await().during(OperatorFixture.RESYNC.multipliedBy(2)).atMost(OperatorFixture.RESYNC.multipliedBy(4))
        .until(() -> f.get(Secret.class, NS, "invoicing-autoscaler-credentials").getMetadata().getOwnerReferences()
            .isEmpty());
    assertThat(f.get(Secret.class, NS, "invoicing-autoscaler-credentials").getData())
        .containsEntry("host", "dGhlaXJz");
    assertThat(get(KedaObjects.SCALED_OBJECTS, "invoicing")).as("nothing scales on their credentials").isNull();
  }

  /** KEDA's two CRDs, as its Helm chart would install them (the mock API validates no schema). */
  static void installKeda() {
    installKeda(f);
  }

  static void installKeda(OperatorFixture f) {
    for (String[] kind : new String[][] {{"ScaledObject", "scaledobjects"},
        {"TriggerAuthentication", "triggerauthentications"}}) {
      f.client.apiextensions().v1().customResourceDefinitions().resource(new CustomResourceDefinitionBuilder()
          .withNewMetadata().withName(kind[1] + ".keda.sh").endMetadata()
          .withNewSpec().withGroup("keda.sh").withScope("Namespaced")
          .withNewNames().withKind(kind[0]).withPlural(kind[1]).withSingular(kind[0].toLowerCase()).endNames()
          .addNewVersion().withName("v1alpha1").withServed(true).withStorage(true)
          .withNewSchema().withNewOpenAPIV3Schema().withType("object").withXKubernetesPreserveUnknownFields(true)
          .endOpenAPIV3Schema().endSchema()
          .endVersion()
          .endSpec()
          .build()).create();
    }
  }

  static GenericKubernetesResource get(ResourceDefinitionContext type, String name) {
    return f.client.genericKubernetesResources(type).inNamespace(NS).withName(name).get();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    return (Map<String, Object>) o;
  }
}
