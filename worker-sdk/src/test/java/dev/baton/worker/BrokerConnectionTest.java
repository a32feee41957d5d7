package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ConnectionFactory;
import dev.baton.contract.TlsTrust;
import dev.baton.contract.settings.InvalidSettingsException;
import dev.baton.contract.settings.SettingsReader;
import dev.baton.testing.SelfSignedCertificate;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code amqps://} trusts the CA file the same way as the runtime ({@link TlsTrust}), however the URI is given: from
 * the environment, or through the builder's {@code uri(...)}, which used to ignore {@code BATON_RABBITMQ_CA_FILE}.
 * A local TLS server with a throw-away self-signed certificate ({@link SelfSignedCertificate}) shows which
 * certificates the worker's socket factory accepts.
 */
class BrokerConnectionTest {

  @TempDir
  static Path dir;
  static SelfSignedCertificate certificate;
  static Path caPem;

  @BeforeAll
  static void makeCertificate() throws Exception {
    certificate = SelfSignedCertificate.create(dir);
    caPem = certificate.caPem();
  }

  @Test
  void anAmqpsUriTrustsTheGivenCaFileAndOnlyTheJvmTrustStoreWithoutOne() throws Exception {
    ConnectionFactory withCa = BrokerConnection.fromUri("amqps://u:p@127.0.0.1:5671/%2F", "the broker URI",
        caPem.toString());
    assertThat(handshake(withCa)).isTrue();

    ConnectionFactory withoutCa = BrokerConnection.fromUri("amqps://u:p@127.0.0.1:5671/%2F", "the broker URI", null);
    assertThat(handshake(withoutCa)).as("a self-signed broker is not in the JVM's trust store").isFalse();
  }

  @Test
  void theEnvironmentsCaFileIsUsedForAnAmqpsUri() throws Exception {
    ConnectionFactory f = SettingsReader.read(Map.of("BATON_RABBITMQ_URI", "amqps://u:p@127.0.0.1:5671/%2F",
        TlsTrust.CA_FILE_VARIABLE, caPem.toString()), BrokerConnection::fromEnvironment);
    assertThat(handshake(f)).isTrue();
  }

  @Test
  void aCaFileThatCannotBeReadStopsTheStartNamingIt() {
    assertThatThrownBy(() -> BatonWorker.builder().uri("amqps://u:p@broker:5671/%2F", "/no/such/ca.pem"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/no/such/ca.pem");
    assertThatThrownBy(() -> SettingsReader.read(Map.of("BATON_RABBITMQ_URI", "amqps://u:p@broker:5671/%2F",
        TlsTrust.CA_FILE_VARIABLE, "/no/such/ca.pem"), BrokerConnection::fromEnvironment))
        .isInstanceOf(InvalidSettingsException.class).hasMessageContaining("/no/such/ca.pem")
        .hasMessageStartingWith("BATON_RABBITMQ_CA_FILE: ");
  }

  @Test
  void aPlainAmqpUriNeedsNoCaFile() {
    ConnectionFactory f = BrokerConnection.fromUri("amqp://u:p@broker:5672/%2F", "the broker URI", "/no/such/ca.pem");
    assertThat(f.isSSL()).isFalse();
  }

  /** Whether the factory's TLS sockets accept the local server's certificate. */
  private static boolean handshake(ConnectionFactory factory) throws Exception {
    SSLContext server = certificate.serverContext();
    try (SSLServerSocket listening = (SSLServerSocket) server.getServerSocketFactory().createServerSocket(0)) {
      CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
        try (SSLSocket s = (SSLSocket) listening.accept()) {
          s.startHandshake();
        } catch (Exception ignored) {
          // the client refused us: that is what the test looks at
        }
      });
      try (SSLSocket client = (SSLSocket) factory.getSocketFactory().createSocket("127.0.0.1",
          listening.getLocalPort())) {
        client.startHandshake();
        return true;
      } catch (SSLHandshakeException refused) {
        return false;
      } finally {
        accepted.get(10, TimeUnit.SECONDS);
      }
    }
  }
}
