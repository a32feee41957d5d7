package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.deployment;
import static dev.baton.operator.it.Crs.workerService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.dependent.Credentials;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An operator configured for TLS to the broker (BATON_RABBITMQ_TLS, BATON_RABBITMQ_CA_FILE) gives workers amqps://
 * credentials and the broker's CA, mounted where the worker SDK reads it. (The broker here speaks plain AMQP: what is
 * checked is what the operator writes; the operator itself declares over plain AMQP, BATON_OPERATOR_AMQP_URL.)
 */
class BrokerTlsIT {

  static final String PEM = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n";
  static OperatorFixture f;

  @BeforeAll
  static void start() throws Exception {
    Path ca = Files.createTempFile("broker-ca", ".crt");
    Files.writeString(ca, PEM);
    f = OperatorFixture.start("tls", s -> s.toBuilder().tls(true, ca.toString())
        .operatorAmqpUrl("amqp://" + s.amqpHost() + ":" + s.amqpPort()).build());
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  void workers_get_amqps_credentials_and_the_brokers_ca_mounted() {
    f.create(workerService("secure", "payment", spec -> spec.setDeployment(deployment("example/payment:1.0", 1)),
        "pay"));

    Secret secret = await().atMost(OperatorFixture.WITHIN)
        .until(() -> f.get(Secret.class, "secure", "payment-broker-credentials"), s -> s != null);
    assertThat(Credentials.value(secret, Credentials.URI)).get().asString().startsWith("amqps://baton-");
    assertThat(Credentials.value(secret, Credentials.CA)).contains(PEM);

    Deployment d = await().atMost(OperatorFixture.WITHIN)
        .until(() -> f.get(Deployment.class, "secure", "payment"), x -> x != null);
    var pod = d.getSpec().getTemplate().getSpec();
    assertThat(pod.getContainers().get(0).getEnv()).extracting(EnvVar::getName, EnvVar::getValue)
        .contains(tuple("BATON_RABBITMQ_CA_FILE", "/etc/baton/broker/ca.crt"));
    assertThat(pod.getVolumes()).anySatisfy(v -> assertThat(v.getSecret()).isNotNull()
        .satisfies(s -> assertThat(s.getSecretName()).isEqualTo("payment-broker-credentials")));
  }
}
