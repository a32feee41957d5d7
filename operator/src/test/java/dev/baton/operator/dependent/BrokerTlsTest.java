package dev.baton.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.OperatorSettings;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With the operator configured for TLS, workers get amqps:// credentials and the broker's CA to trust. */
class BrokerTlsTest {

  static final String PEM = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";

  @Test
  void credentials_are_amqps_and_carry_the_ca_when_the_operator_has_one() {
    WorkerPlan plan = new WorkerPlan("baton-payment", "rabbit.example", 5671, "/", Map.of(), true, null, true, PEM);

    Map<String, String> data = Credentials.data(plan, "secret");

    assertThat(decode(data.get(Credentials.URI))).isEqualTo("amqps://baton-payment:secret@rabbit.example:5671/%2F");
    assertThat(decode(data.get(Credentials.CA))).isEqualTo(PEM);
    WorkerPlan plain = new WorkerPlan("baton-payment", "rabbit", 5672, "/", Map.of(), true, null, false, null);
    assertThat(Credentials.data(plain, "secret")).doesNotContainKey(Credentials.CA);
    assertThat(decode(Credentials.data(plain, "secret").get(Credentials.URI))).startsWith("amqp://");
  }

  @Test
  void the_worker_pod_mounts_the_ca_and_is_told_where_it_is() {
    WorkerService ws = new WorkerService();
    ws.setMetadata(new ObjectMetaBuilder().withNamespace("shop").withName("payment").build());
    PodSpec pod = new PodSpecBuilder().addNewContainer().withName(WorkerResources.CONTAINER).endContainer().build();

    WorkerDeploymentDependent.trustBrokerCa(ws, pod);

    assertThat(pod.getVolumes()).singleElement().satisfies(v -> {
      assertThat(v.getSecret().getSecretName()).isEqualTo(WorkerResources.secretName(ws));
      assertThat(v.getSecret().getItems()).singleElement().satisfies(i -> assertThat(i.getKey()).isEqualTo("ca.crt"));
    });
    assertThat(pod.getContainers().get(0).getVolumeMounts()).singleElement()
        .satisfies(m -> assertThat(m.getReadOnly()).isTrue());
    assertThat(pod.getContainers().get(0).getEnv()).extracting(EnvVar::getName, EnvVar::getValue)
        .contains(tuple("BATON_RABBITMQ_CA_FILE", "/etc/baton/broker/ca.crt"));
  }

  @Test
  void the_ca_file_is_read_once_and_a_bad_one_is_named(@TempDir Path dir) throws Exception {
    Path ca = dir.resolve("ca.crt");
    Files.writeString(ca, PEM);
    assertThat(BrokerCa.read(OperatorSettings.localDefaults().toBuilder().tls(true, ca.toString()).build()))
        .isEqualTo(PEM);
    assertThat(BrokerCa.read(OperatorSettings.localDefaults())).isNull();

    Files.writeString(ca, "not a certificate");
    assertThatThrownBy(() -> BrokerCa.read(OperatorSettings.localDefaults().toBuilder().tls(true, ca.toString())
        .build())).hasMessageContaining("BATON_RABBITMQ_CA_FILE").hasMessageContaining("holds no PEM certificate");
    assertThatThrownBy(() -> BrokerCa.read(OperatorSettings.localDefaults().toBuilder()
        .tls(true, dir.resolve("missing.crt").toString()).build())).hasMessageContaining("cannot read");
  }

  private static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }
}
