package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testing.HttpsJsonStub;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dead-letter page reads an https management API signed by the broker's CA (BATON_RABBITMQ_CA_FILE, the chart's
 * rabbitmq.tls.caSecret), as the runtime's amqps:// connections do; without the CA file, only the JVM's trust store. A
 * local https server with a throw-away certificate stands for the management API.
 */
class DeadLetterDeskTlsTest {

  private static final String BROKER = "amqps://u:p@127.0.0.1:5671/%2F";

  @TempDir
  static Path dir;
  static HttpsJsonStub management;

  @BeforeAll
  static void managementApi() throws Exception {
    management = HttpsJsonStub.serving(dir, "/api/queues/", "[]"); // GET /api/queues/%2F: no queue in the vhost
  }

  @AfterAll
  static void stop() {
    management.close();
  }

  @Test
  void theBrokersCaFileIsTrustedForTheManagementApi() {
    DeadLetterDesk desk = DeadLetterDesk.of(management.managementUrl(), BROKER, "u", "p", management.caPem().toString(),
        List.of());
    int before = management.reads();

    assertThat(desk.unavailable()).isEmpty();
    assertThat(desk.byService(null)).isEmpty();
    assertThat(management.reads()).as("the page read the queues").isEqualTo(before + 1);
  }

  @Test
  void withoutItTheJvmsTrustStoreRefusesAPrivateCa() {
    DeadLetterDesk desk = DeadLetterDesk.of(management.managementUrl(), BROKER, "u", "p", null, List.of());

    assertThatThrownBy(() -> desk.byService(null)).hasCauseInstanceOf(SSLHandshakeException.class);
  }
}
