package dev.baton.operator.it;

import static dev.baton.operator.it.BrokerState.binding;
import static dev.baton.operator.it.Crs.deployment;
import static dev.baton.operator.it.Crs.retryPolicy;
import static dev.baton.operator.it.Crs.step;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.Crs.workflow;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Connection;
import com.rabbitmq.http.client.domain.UserInfo;
import com.rabbitmq.http.client.domain.UserPermissions;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.ConsumerStatus;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceStatus;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowStatus;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * RetryPolicy + WorkerService + Workflow applied → exactly the objects of docs/design.md#broker-names, docs/design.md#security on the real broker,
 * the Secret and the Deployment in Kubernetes, honest status; then everything deleted behind the operator's back
 * comes back within one resync.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TopologyOnTheBrokerIT {

  static final String NS = "shop";
  static OperatorFixture f;
  static BrokerState broker;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("topo");
    broker = new BrokerState(f.management, f.vhost.name());
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  @Order(1)
  void applyDeclaresExactlyThePlannedObjects() {
    f.create(retryPolicy(NS, "standard", 3, "1s", "5s"));
    f.create(workerService(NS, "payment", spec -> {
      spec.setDeployment(deployment("example/payment:1.0", 2));
      spec.getDeployment().getEnv().add(new EnvVar("LOG_LEVEL", "info", null));
    }, "pay:standard", "refund"));
    f.create(workflow(NS, "checkout", "order", step("charge", "payment", "pay", "refund")));

    f.awaitCondition(WorkerService.class, NS, "payment", ConditionTypes.TOPOLOGY_READY, true, "Declared");
    f.awaitReady(Workflow.class, NS, "checkout", true, "Ready");

    assertThat(broker.exchanges()).isEqualTo(Map.of(
        "baton.instance.topic.ex", "topic", // the vhost's instance outcomes, declared when the operator starts
        "payment.command.topic.ex", "topic",
        "payment.event.topic.ex", "topic",
        "payment.retry.direct.ex", "direct"));
    assertThat(broker.queues()).isEqualTo(Map.of(
        "q.payment.pay", Map.of("x-queue-type", "classic",
            "x-dead-letter-exchange", "payment.retry.direct.ex", "x-dead-letter-routing-key", "q.payment.pay"),
        "q.retry.payment.pay.1s", Map.of("x-queue-type", "classic", "x-message-ttl", 1000L,
            "x-dead-letter-exchange", "payment.command.topic.ex", "x-dead-letter-routing-key", "service.payment.pay"),
        "q.retry.payment.pay.5s", Map.of("x-queue-type", "classic", "x-message-ttl", 5000L,
            "x-dead-letter-exchange", "payment.command.topic.ex", "x-dead-letter-routing-key", "service.payment.pay"),
        "q.dlx.payment.pay", Map.of("x-queue-type", "classic"),
        "q.payment.refund", Map.of("x-queue-type", "classic",
            "x-dead-letter-exchange", "payment.retry.direct.ex", "x-dead-letter-routing-key", "q.payment.refund"),
        "q.dlx.payment.refund", Map.of("x-queue-type", "classic"),
        "q.orchestrator.checkout", Map.of("x-queue-type", "classic",
            "x-dead-letter-exchange", "", "x-dead-letter-routing-key", "q.dlx.orchestrator.checkout"),
        "q.dlx.orchestrator.checkout", Map.of("x-queue-type", "classic")));
    assertThat(broker.bindings()).containsExactlyInAnyOrder(
        binding("payment.command.topic.ex", "q.payment.pay", "service.payment.pay"),
        binding("payment.retry.direct.ex", "q.retry.payment.pay.1s", "q.retry.payment.pay.1s"),
        binding("payment.retry.direct.ex", "q.retry.payment.pay.5s", "q.retry.payment.pay.5s"),
        binding("payment.retry.direct.ex", "q.dlx.payment.pay", "q.dlx.payment.pay"),
        // a plain nack on q.payment.pay lands in the first tier; without retries, in the parking lot
        binding("payment.retry.direct.ex", "q.retry.payment.pay.1s", "q.payment.pay"),
        binding("payment.command.topic.ex", "q.payment.refund", "service.payment.refund"),
        binding("payment.retry.direct.ex", "q.dlx.payment.refund", "q.dlx.payment.refund"),
        binding("payment.retry.direct.ex", "q.dlx.payment.refund", "q.payment.refund"),
        binding("payment.event.topic.ex", "q.orchestrator.checkout", "order.pay.success"),
        binding("payment.event.topic.ex", "q.orchestrator.checkout", "order.pay.failed"),
        binding("payment.event.topic.ex", "q.orchestrator.checkout", "order.pay.error"),
        binding("payment.event.topic.ex", "q.orchestrator.checkout", "order.pay.expired"),
        binding("payment.event.topic.ex", "q.orchestrator.checkout", "order.refund.success"),
        binding("payment.event.topic.ex", "q.orchestrator.checkout", "order.refund.failed"),
        binding("payment.event.topic.ex", "q.orchestrator.checkout", "order.refund.error"),
        binding("payment.event.topic.ex", "q.orchestrator.checkout", "order.refund.expired"));

    // docs/design.md#security: the worker's user reads only its own consumer queues and writes only its event and retry exchanges.
    String user = f.username("payment");
    UserInfo info = f.management.getUser(user);
    assertThat(info.getTags()).isEmpty();
    UserPermissions p = f.management.getPermissions(f.vhost.name(), user);
    assertThat(p.getConfigure()).isEqualTo("^$");
    assertThat(p.getWrite()).isEqualTo("^(payment\\.event\\.topic\\.ex|payment\\.retry\\.direct\\.ex)$");
    assertThat(p.getRead()).isEqualTo("^q\\.payment\\.[^.]+$");

    Map<String, String> secret = decode(f.get(Secret.class, NS, "payment-broker-credentials"));
    assertThat(secret).containsOnlyKeys("username", "password", "uri");
    assertThat(secret.get("username")).isEqualTo(user);
    assertThat(secret.get("password")).hasSize(32);
    assertThat(secret.get("uri")).isEqualTo(f.vhost.amqpUri(user, secret.get("password")));

    Deployment d = f.get(Deployment.class, NS, "payment");
    assertThat(d.getSpec().getReplicas()).isEqualTo(2);
    assertThat(d.getMetadata().getLabels()).containsEntry("app.kubernetes.io/name", "payment")
        .containsEntry("app.kubernetes.io/managed-by", "baton-operator").containsEntry("baton.dev/worker-service", "payment");
    assertThat(d.getSpec().getSelector().getMatchLabels()).isEqualTo(Map.of("baton.dev/worker-service", "payment"));
    Container worker = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(worker.getName()).isEqualTo("worker");
    assertThat(worker.getImage()).isEqualTo("example/payment:1.0");
    Map<String, EnvVar> env = worker.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, Function.identity()));
    assertThat(env.get("LOG_LEVEL").getValue()).isEqualTo("info");
    assertThat(env.get("BATON_SERVICE").getValue()).isEqualTo("payment");
    assertThat(env.get("BATON_CONSUMER_PAY_QUEUE").getValue()).isEqualTo("q.payment.pay");
    assertThat(env.get("BATON_CONSUMER_PAY_RETRY_QUEUES").getValue()).isEqualTo("q.retry.payment.pay.1s,q.retry.payment.pay.5s");
    assertThat(env.get("BATON_CONSUMER_REFUND_MAX_ATTEMPTS").getValue()).isEqualTo("1");
    for (String[] ref : List.of(new String[] {"BATON_RABBITMQ_URI", "uri"},
        new String[] {"BATON_RABBITMQ_USERNAME", "username"}, new String[] {"BATON_RABBITMQ_PASSWORD", "password"})) {
      EnvVar v = env.get(ref[0]);
      assertThat(v.getValue()).as(ref[0] + " comes by reference, never by value").isNull();
      assertThat(v.getValueFrom().getSecretKeyRef().getName()).isEqualTo("payment-broker-credentials");
      assertThat(v.getValueFrom().getSecretKeyRef().getKey()).isEqualTo(ref[1]);
    }

    WorkerServiceStatus status = f.get(WorkerService.class, NS, "payment").getStatus();
    assertThat(status.getService()).isEqualTo("payment");
    assertThat(status.getCommandCount()).isEqualTo(2);
    assertThat(status.getUsername()).isEqualTo(user);
    assertThat(status.getCredentialsSecret()).isEqualTo("payment-broker-credentials");
    assertThat(status.getDeployment()).isEqualTo("payment");
    assertThat(status.getExchanges()).hasSize(3);
    assertThat(status.getQueues()).containsExactlyInAnyOrder("q.payment.pay", "q.retry.payment.pay.1s",
        "q.retry.payment.pay.5s", "q.dlx.payment.pay", "q.payment.refund", "q.dlx.payment.refund");
    ConsumerStatus pay = status.getCommands().get(0);
    assertThat(pay.getQueue()).isEqualTo("q.payment.pay");
    assertThat(pay.getRetryQueues()).containsExactly("q.retry.payment.pay.1s", "q.retry.payment.pay.5s");
    assertThat(pay.getDeadLetterQueue()).isEqualTo("q.dlx.payment.pay");
    assertThat(pay.getMessages()).isZero();
    assertThat(status.getObservedGeneration()).isEqualTo(1L);
    // No pods run against the mock API server: the Deployment is honest about it, and so is Ready.
    assertThat(status.condition(ConditionTypes.DEPLOYMENT_READY).orElseThrow().getReason()).isEqualTo("ReplicasUnavailable");
    assertThat(status.condition(ConditionTypes.READY).orElseThrow().getStatus()).isEqualTo("False");

    f.client.apps().deployments().inNamespace(NS).withName("payment").editStatus(x -> {
      x.setStatus(new DeploymentStatusBuilder().withReplicas(2).withAvailableReplicas(2).build());
      return x;
    });
    f.awaitReady(WorkerService.class, NS, "payment", true, "Ready");
    assertThat(f.condition(WorkerService.class, NS, "payment", ConditionTypes.DEPLOYMENT_READY).orElseThrow().getMessage())
        .contains("2/2");

    WorkflowStatus wf = f.get(Workflow.class, NS, "checkout").getStatus();
    assertThat(wf.getSteps()).isEqualTo(1);
    assertThat(wf.getQueue()).isEqualTo("q.orchestrator.checkout");
    assertThat(wf.getDeadLetterQueue()).isEqualTo("q.dlx.orchestrator.checkout");

    RetryPolicy policy = f.get(RetryPolicy.class, NS, "standard");
    assertThat(policy.getStatus().getRetries()).isEqualTo(2);
    assertThat(policy.getStatus().getDelays()).containsExactly("1s", "5s");
    assertThat(policy.getStatus().getTiers()).containsExactly("1s", "5s");
    assertThat(policy.getStatus().isReady()).isTrue();
  }

  @Test
  @Order(2)
  void whatIsDeletedBehindTheOperatorsBackIsBackWithinOneResync() throws Exception {
    String vhost = f.vhost.name();
    String user = f.username("payment");
    var before = broker.queues();
    var bindingsBefore = broker.bindings();

    f.management.deleteQueue(vhost, "q.payment.refund");
    f.management.unbindQueue(vhost, "q.payment.pay", "payment.command.topic.ex", "service.payment.pay");
    f.management.deleteExchange(vhost, "payment.event.topic.ex");   // takes the Workflow's bindings with it
    f.management.deleteUser(user);
    await().atMost(WITHIN).untilAsserted(() -> {
      assertThat(broker.queues()).isEqualTo(before);
      assertThat(broker.bindings()).isEqualTo(bindingsBefore);
      assertThat(f.management.getUser(user)).isNotNull();
    });
    String password = decode(f.get(Secret.class, NS, "payment-broker-credentials")).get("password");
    try (Connection c = f.vhost.connectionFactory(user, password).newConnection("drift-user")) {
      assertThat(c.isOpen()).as("the recreated user has the Secret's password").isTrue();
    }

    f.management.updatePermissions(vhost, user, new UserPermissions(".*", ".*", ".*"));
    await().atMost(WITHIN).until(() -> f.management.getPermissions(vhost, user).getWrite(),
        w -> w.equals("^(payment\\.event\\.topic\\.ex|payment\\.retry\\.direct\\.ex)$"));

    // A deleted Secret comes back with a new password, and the broker user follows it.
    f.delete(Secret.class, NS, "payment-broker-credentials");
    String renewed = await().atMost(WITHIN).until(() -> {
      Secret s = f.get(Secret.class, NS, "payment-broker-credentials");
      return s == null ? null : decode(s).get("password");
    }, pw -> pw != null && !pw.equals(password));
    await().atMost(WITHIN).untilAsserted(() -> {
      try (Connection c = f.vhost.connectionFactory(user, renewed).newConnection("drift-secret")) {
        assertThat(c.isOpen()).isTrue();
      }
    });

    f.delete(Deployment.class, NS, "payment");
    await().atMost(WITHIN).until(() -> f.get(Deployment.class, NS, "payment") != null);
  }

  static Map<String, String> decode(Secret secret) {
    return secret.getData().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
        e -> new String(Base64.getDecoder().decode(e.getValue()), StandardCharsets.UTF_8)));
  }
}
