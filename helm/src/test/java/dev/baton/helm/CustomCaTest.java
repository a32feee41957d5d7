package dev.baton.helm;

import static dev.baton.helm.Rendered.container;
import static dev.baton.helm.Rendered.env;
import static dev.baton.helm.Rendered.plainValues;
import static dev.baton.helm.Rendered.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.operator.OperatorSettings;
import dev.baton.runtime.app.RuntimeSettings;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CAs of the broker (rabbitmq.tls.caSecret) and of the database (runtime.database.caSecret) reach the processes
 * that read them: each Secret's ca.crt mounted, and the setting that names the file read back by the component's own
 * settings class, as the process would read it.
 */
class CustomCaTest {

  private static final String BROKER_CA = "/etc/baton/broker-ca/ca.crt";
  private static final String DATABASE_CA = "/etc/baton/database-ca/ca.crt";

  @Test
  void theBrokersCaIsTrustedByTheOperatorAndTheRuntime() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS, Map.of("rabbitmq.tls.enabled", true,
        "rabbitmq.tls.caSecret", "broker-ca", "rabbitmq.port", 5671));

    assertThat(value(chart.operator(), "BATON_RABBITMQ_TLS")).isEqualTo("true");
    assertThat(value(chart.operator(), "BATON_RABBITMQ_PORT")).isEqualTo("5671");
    assertThat(OperatorSettings.fromEnvironment(plainValues(chart.operator())).caFile()).isEqualTo(BROKER_CA);
    assertThat(RuntimeSettings.fromEnvironment(plainValues(chart.runtime())).amqpCaFile()).isEqualTo(BROKER_CA);
    for (Deployment d : List.of(chart.operator(), chart.runtime())) {
      assertMounted(d, "broker-ca", "broker-ca", BROKER_CA);
    }
  }

  @Test
  void withoutCasNothingIsMountedAndTheUrlIsAsGiven() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS);

    for (Deployment d : List.of(chart.operator(), chart.runtime())) {
      assertThat(env(d)).doesNotContainKeys("BATON_RABBITMQ_TLS", "BATON_RABBITMQ_CA_FILE");
      assertThat(d.getSpec().getTemplate().getSpec().getVolumes()).extracting(Volume::getName)
          .doesNotContain("broker-ca", "database-ca");
    }
    assertThat(value(chart.runtime(), "BATON_DATABASE_URL"))
        .isEqualTo("jdbc:postgresql://postgresql.baton-system.svc:5432/baton");
  }

  /** The driver verifies the server against the mounted CA: sslmode=verify-full unless the URL chose a mode. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "jdbc:postgresql://db:5432/baton                     | jdbc:postgresql://db:5432/baton?sslmode=verify-full&sslrootcert=" + DATABASE_CA,
    "jdbc:postgresql://db:5432/baton?ApplicationName=b   | jdbc:postgresql://db:5432/baton?ApplicationName=b&sslmode=verify-full&sslrootcert=" + DATABASE_CA,
    "jdbc:postgresql://db:5432/baton?sslmode=verify-ca   | jdbc:postgresql://db:5432/baton?sslmode=verify-ca&sslrootcert=" + DATABASE_CA,
  })
  void theDatabasesCaIsMountedAndNamedInTheUrl(String url, String rendered) {
    Deployment runtime = Chart.template(ValueSet.DEFAULTS, Map.of("runtime.database.url", url,
        "runtime.database.caSecret", "baton-db-ca")).runtime();

    assertThat(RuntimeSettings.fromEnvironment(plainValues(runtime)).databaseUrl()).isEqualTo(rendered);
    assertMounted(runtime, "database-ca", "baton-db-ca", DATABASE_CA);
  }

  @Test
  void aUrlWithItsOwnRootCertAndACaSecretIsRefused() {
    assertThatThrownBy(() -> Chart.template(ValueSet.DEFAULTS, Map.of("runtime.database.caSecret", "baton-db-ca",
        "runtime.database.url", "jdbc:postgresql://db/baton?sslrootcert=/elsewhere.crt")))
        .hasMessageContaining("keep one of the two");
  }

  /** The Secret's ca.crt, mounted read-only where the file's path says. */
  private static void assertMounted(Deployment deployment, String volume, String secret, String file) {
    assertThat(deployment.getSpec().getTemplate().getSpec().getVolumes()).filteredOn(v -> v.getName().equals(volume))
        .singleElement().satisfies(v -> {
          assertThat(v.getSecret().getSecretName()).isEqualTo(secret);
          assertThat(v.getSecret().getItems()).singleElement().satisfies(item -> {
            assertThat(item.getKey()).isEqualTo("ca.crt");
            assertThat(item.getPath()).isEqualTo("ca.crt");
          });
        });
    assertThat(container(deployment).getVolumeMounts()).filteredOn(m -> m.getName().equals(volume)).singleElement()
        .satisfies(m -> {
          assertThat(m.getReadOnly()).isTrue();
          assertThat(m.getMountPath() + "/ca.crt").isEqualTo(file);
        });
  }
}
