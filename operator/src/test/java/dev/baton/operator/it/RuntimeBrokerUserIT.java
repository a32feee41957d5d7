package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.http.client.domain.UserPermissions;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.topology.TopologyPlanner;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * docs/design.md#security "only the orchestrator's user may write command exchanges": the operator keeps the runtime's broker
 * user with exactly the planned permissions and the Secret the runtime reads it from, repairs both, and does so as
 * the elected leader (leader election on, with its Lease).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RuntimeBrokerUserIT {

  static final String NS = "shop";
  static final String SYSTEM = "baton-system";
  static OperatorFixture f;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("runtime-user", s -> s.toBuilder()
        .runtimeCredentialsSecret(SYSTEM + "/baton-runtime-broker")
        .leaderElection(true, SYSTEM, "baton-operator")
        .build(), RuntimeBrokerUserIT::leaseAccess, b -> b);
    f.create(workerService(NS, "payment", "pay"));
    f.awaitReady(WorkerService.class, NS, "payment", true, "Ready");
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  @Order(1)
  void theLeaderHoldsTheLease() {
    Lease lease = f.client.leases().inNamespace(SYSTEM).withName("baton-operator").get();
    assertThat(lease).isNotNull();
    assertThat(lease.getSpec().getHolderIdentity()).isNotBlank();
  }

  @Test
  @Order(2)
  void theRuntimeUserHasExactlyTheOrchestratorsPermissions() {
    Map<String, String> secret = awaitSecret();
    String user = f.username("orchestrator");
    assertThat(secret).containsEntry("username", user).containsKeys("password", "uri");
    assertThat(secret.get("uri")).startsWith("amqp://" + user + ":");
    UserPermissions p = f.management.getPermissions(f.vhost.name(), user);
    var planned = TopologyPlanner.orchestratorPermissions();
    assertThat(new String[] {p.getConfigure(), p.getWrite(), p.getRead()})
        .containsExactly(planned.configure(), planned.write(), planned.read());
    assertThat(f.management.getUser(user).getTags()).isEmpty();
  }

  @Test
  @Order(3)
  void itPublishesCommandsButNotEvents() throws Exception {
    try (Connection c = connect(awaitSecret())) {
      try (Channel ch = c.createChannel()) {
        ch.confirmSelect();
        ch.basicPublish("payment.command.topic.ex", "service.payment.pay", props(), body());
        ch.waitForConfirmsOrDie(5_000);
      }
      await().atMost(WITHIN).until(() -> Amqp.ready(f.vhost, "q.payment.pay") == 1);
      Channel ch = c.createChannel();
      ch.confirmSelect();
      assertThatThrownBy(() -> {
        ch.basicPublish("payment.event.topic.ex", "order.pay.success", props(), body());
        ch.waitForConfirmsOrDie(5_000);
      }).isNotNull();
      assertThat(ch.getCloseReason().getMessage()).contains("403").contains("ACCESS_REFUSED");
    }
  }

  @Test
  @Order(4)
  void aDeletedUserComesBackWithThePasswordOfTheSecret() throws Exception {
    Map<String, String> before = awaitSecret();
    f.management.deleteUser(f.username("orchestrator"));
    await().atMost(WITHIN).until(() -> f.management.getUser(f.username("orchestrator")) != null);
    assertThat(awaitSecret()).isEqualTo(before);
    try (Connection c = connect(before)) {
      assertThat(c.isOpen()).isTrue();
    }
  }

  @Test
  @Order(5)
  void aDeletedSecretComesBackAndTheUserFollowsIt() throws Exception {
    Map<String, String> before = awaitSecret();
    f.client.secrets().inNamespace(SYSTEM).withName("baton-runtime-broker").delete();
    await().atMost(WITHIN).until(() -> {
      Secret s = f.get(Secret.class, SYSTEM, "baton-runtime-broker");
      return s != null && !TopologyOnTheBrokerIT.decode(s).get("password").equals(before.get("password"));
    });
    await().atMost(WITHIN).untilAsserted(() -> {
      try (Connection c = connect(awaitSecret())) {
        assertThat(c.isOpen()).isTrue();
      }
    });
  }

  private static Map<String, String> awaitSecret() {
    return TopologyOnTheBrokerIT.decode(await().atMost(WITHIN)
        .until(() -> f.get(Secret.class, SYSTEM, "baton-runtime-broker"), s -> s != null));
  }

  private static Connection connect(Map<String, String> secret) throws Exception {
    ConnectionFactory cf = new ConnectionFactory();
    cf.setUri(secret.get("uri"));
    return cf.newConnection("runtime-probe");
  }

  /** JOSDK checks the Lease permissions with a SelfSubjectRulesReview, which the CRUD mock cannot answer. */
  private static void leaseAccess(io.fabric8.kubernetes.client.server.mock.KubernetesMockServer server) {
    server.expect().post().withPath("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
        .andReturn(201, new SelfSubjectRulesReviewBuilder()
            .withNewSpec().withNamespace(SYSTEM).endSpec()
            .withNewStatus().withIncomplete(false)
            .addNewResourceRule().withApiGroups("coordination.k8s.io").withResources("leases")
            .withVerbs("get", "create", "update").endResourceRule()
            .endStatus()
            .build())
        .always();
  }

  private static AMQP.BasicProperties props() {
    return new AMQP.BasicProperties.Builder().deliveryMode(2).contentType("application/json").build();
  }

  private static byte[] body() {
    return "{}".getBytes(StandardCharsets.UTF_8);
  }
}
