package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.baton.testing.SelfSignedCertificate;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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
  static SelfSignedCertificate certificate;
  static HttpsServer management;
  static final AtomicInteger queueReads = new AtomicInteger();

  @BeforeAll
  static void managementApi() throws Exception {
    certificate = SelfSignedCertificate.create(dir);
    management = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    management.setHttpsConfigurator(new HttpsConfigurator(certificate.serverContext()));
    management.createContext("/api/queues/", exchange -> { // GET /api/queues/%2F: no queue in the vhost
      queueReads.incrementAndGet();
      byte[] body = "[]".getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    management.start();
  }

  @AfterAll
  static void stop() {
    management.stop(0);
  }

  private static String url() {
    return "https://127.0.0.1:" + management.getAddress().getPort() + "/api/";
  }

  @Test
  void theBrokersCaFileIsTrustedForTheManagementApi() {
    DeadLetterDesk desk = DeadLetterDesk.of(url(), BROKER, "u", "p", certificate.caPem().toString(), List.of());
    int before = queueReads.get();

    assertThat(desk.unavailable()).isEmpty();
    assertThat(desk.byService(null)).isEmpty();
    assertThat(queueReads.get()).as("the page read the queues").isEqualTo(before + 1);
  }

  @Test
  void withoutItTheJvmsTrustStoreRefusesAPrivateCa() {
    DeadLetterDesk desk = DeadLetterDesk.of(url(), BROKER, "u", "p", null, List.of());

    assertThatThrownBy(() -> desk.byService(null)).hasCauseInstanceOf(SSLHandshakeException.class);
  }
}
