package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.deployment;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.broker.BrokerUser;
import dev.baton.operator.broker.PasswordHash;
import dev.baton.operator.dependent.Credentials;
import dev.baton.operator.dependent.WorkerResources;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.Test;

/**
 * A new value of the annotation baton.dev/rotate-credentials on a WorkerService draws a new broker password: the
 * Secret holds it, the broker user follows, and the worker pods roll (their template carries the value). An imported
 * password (baton.dev/password-secret) that changes in its Secret is taken at the next pass, and rolls the pods too
 * (their template carries its checksum).
 */
class CredentialRotationIT {

  static final String NS = "vault";

  @Test
  void anAnnotationRotatesThePasswordAndRollsThePods() {
    try (OperatorFixture f = OperatorFixture.start("rotate")) {
      f.create(workerService(NS, "keys", spec -> spec.setDeployment(deployment("example/keys:1", 1)), "sign"));
      f.awaitCondition(WorkerService.class, NS, "keys", ConditionTypes.TOPOLOGY_READY, true, "Declared");
      await().atMost(WITHIN).until(() -> f.get(Deployment.class, NS, "keys") != null);
      String before = Credentials.password(f.get(Secret.class, NS, "keys-broker-credentials")).orElseThrow();

      f.edit(WorkerService.class, NS, "keys", ws -> {
        ws.getMetadata().getAnnotations().put(WorkerResources.ROTATE_ANNOTATION, "2026-12-01");
        return ws;
      });

      await().atMost(WITHIN).untilAsserted(() -> {
        Secret secret = f.get(Secret.class, NS, "keys-broker-credentials");
        String after = Credentials.password(secret).orElseThrow();
        assertThat(after).isNotEqualTo(before);
        assertThat(Credentials.value(secret, Credentials.URI).orElseThrow()).contains(Credentials.encode(after));
        var user = f.management.getUser(f.username("keys"));
        assertThat(PasswordHash.matches(new BrokerUser(user.getName(), user.getPasswordHash(),
            user.getHashingAlgorithm()), after)).as("the broker user follows").isTrue();
        assertThat(f.get(Deployment.class, NS, "keys").getSpec().getTemplate().getMetadata().getAnnotations())
            .as("the pods roll").containsEntry(WorkerResources.ROTATE_ANNOTATION, "2026-12-01");
      });
      String rotated = Credentials.password(f.get(Secret.class, NS, "keys-broker-credentials")).orElseThrow();

      // Later passes keep the rotated password: one rotation per new value.
      f.awaitReady(WorkerService.class, NS, "keys", false, "ReplicasUnavailable");
      await().during(java.time.Duration.ofSeconds(5)).atMost(java.time.Duration.ofSeconds(8)).until(() ->
          Credentials.password(f.get(Secret.class, NS, "keys-broker-credentials")).orElseThrow().equals(rotated));
    }
  }

  @Test
  void aPasswordIsImportedFromTheSecretTheAnnotationNames() {
    try (OperatorFixture f = OperatorFixture.start("import")) {
      WorkerService ws = workerService(NS, "vaulted", "sign");
      ws.getMetadata().setAnnotations(new java.util.HashMap<>(java.util.Map.of(
          dev.baton.operator.dependent.ImportedPasswordAnnotation.NAME, "from-vault")));
      f.create(ws);
      assertThat(f.awaitReady(WorkerService.class, NS, "vaulted", false, "InvalidSpec").getMessage())
          .contains("Secret 'from-vault' in namespace 'vault' does not exist");

      f.create(new io.fabric8.kubernetes.api.model.SecretBuilder().withNewMetadata().withNamespace(NS)
          .withName("from-vault").endMetadata().addToStringData("password", "kept-in-the-vault-0123456789").build());
      await().atMost(WITHIN).untilAsserted(() -> {
        Secret credentials = f.get(Secret.class, NS, "vaulted-broker-credentials");
        assertThat(credentials).isNotNull();
        assertThat(Credentials.password(credentials)).contains("kept-in-the-vault-0123456789");
        var user = f.management.getUser(f.username("vaulted"));
        assertThat(user).as("the broker user, once created").isNotNull(); // an assertion, so that the await retries
        assertThat(PasswordHash.matches(new BrokerUser(user.getName(), user.getPasswordHash(),
            user.getHashingAlgorithm()), "kept-in-the-vault-0123456789")).isTrue();
      });
      f.awaitReady(WorkerService.class, NS, "vaulted", true, "Ready");
    }
  }

  @Test
  void aNewPasswordInTheImportedSecretRollsThePods() {
    try (OperatorFixture f = OperatorFixture.start("import-roll")) {
      f.create(new io.fabric8.kubernetes.api.model.SecretBuilder().withNewMetadata().withNamespace(NS)
          .withName("from-vault").endMetadata().addToStringData("password", "kept-in-the-vault-1").build());
      WorkerService ws = workerService(NS, "signer", spec -> spec.setDeployment(deployment("example/signer:1", 1)),
          "sign");
      ws.getMetadata().setAnnotations(new java.util.HashMap<>(java.util.Map.of(
          dev.baton.operator.dependent.ImportedPasswordAnnotation.NAME, "from-vault")));
      f.create(ws);
      String before = await().atMost(WITHIN).until(() -> checksum(f, "signer"), java.util.Objects::nonNull);

      f.edit(Secret.class, NS, "from-vault", secret -> {
        secret.setData(null);
        secret.setStringData(java.util.Map.of("password", "kept-in-the-vault-2"));
        return secret;
      });

      await().atMost(WITHIN).untilAsserted(() -> {
        assertThat(checksum(f, "signer")).as("the pods roll").isNotEqualTo(before)
            .doesNotContain("kept-in-the-vault");
        var user = f.management.getUser(f.username("signer"));
        assertThat(PasswordHash.matches(new BrokerUser(user.getName(), user.getPasswordHash(),
            user.getHashingAlgorithm()), "kept-in-the-vault-2")).as("the broker user follows").isTrue();
      });
    }
  }

  /** The imported password's checksum on the Deployment's pod template, null while there is none. */
  private static String checksum(OperatorFixture f, String deployment) {
    Deployment d = f.get(Deployment.class, NS, deployment);
    return d == null || d.getSpec().getTemplate().getMetadata().getAnnotations() == null ? null
        : d.getSpec().getTemplate().getMetadata().getAnnotations().get(WorkerResources.IMPORTED_PASSWORD_ANNOTATION);
  }
}
