package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ConnectionFactory;
import dev.baton.contract.TlsTrust;
import dev.baton.contract.settings.InvalidSettingsException;
import dev.baton.contract.settings.SettingsReader;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
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
 * A local TLS server with a throw-away self-signed certificate (made with the JDK's keytool) shows which
 * certificates the worker's socket factory accepts.
 */
class BrokerConnectionTest {

  @TempDir
  static Path dir;
  static Path keystore;
  static Path caPem;

  @BeforeAll
  static void certificate() throws Exception {
    keystore = dir.resolve("broker.p12");
    caPem = dir.resolve("ca.pem");
    keytool("-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
        "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
        "-storepass", "changeit", "-keypass", "changeit");
    keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keystore.toString(), "-storepass", "changeit",
        "-file", caPem.toString());
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
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      ks.load(in, "changeit".toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, "changeit".toCharArray());
    SSLContext server = SSLContext.getInstance("TLS");
    server.init(kmf.getKeyManagers(), null, null);
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

  private static void keytool(String... args) throws Exception {
    String[] command = new String[args.length + 1];
    command[0] = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    System.arraycopy(args, 0, command, 1, args.length);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
  }
}
