package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.baton.cli.support.ExitCodes;
import dev.baton.testing.SelfSignedCertificate;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton dlq list} reads a management API served over https with a certificate of a private CA once it is told
 * the CA ({@code --rabbitmq-ca-file}, {@code BATON_RABBITMQ_CA_FILE}), and says what to pass when it is not. A local
 * https server with a throw-away certificate (the JDK's keytool) stands for the management API; no broker is needed.
 */
class DlqManagementTlsTest {

  private static final String QUEUES = """
      [{"name": "q.dlx.payment.charge-card", "vhost": "/", "messages": 2},
       {"name": "q.payment.charge-card", "vhost": "/", "messages": 7}]""";

  @TempDir
  static Path dir;
  static SelfSignedCertificate certificate;
  static HttpsServer management;

  @BeforeAll
  static void managementApi() throws Exception {
    certificate = SelfSignedCertificate.create(dir);
    management = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    management.setHttpsConfigurator(new HttpsConfigurator(certificate.serverContext()));
    management.createContext("/api/queues/", exchange -> { // GET /api/queues/%2F
      byte[] body = QUEUES.getBytes(StandardCharsets.UTF_8);
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
  void theCaFileOptionMakesTheCliTrustThePrivateCa() {
    CliRun run = CliRun.baton(Map.of(), "dlq", "list", "--rabbitmq-management-url", url(),
        "--rabbitmq-ca-file", certificate.caPem().toString());

    assertThat(run.code()).as(run.err()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).contains("q.dlx.payment.charge-card").doesNotContain("q.payment.charge-card ");
  }

  @Test
  void theCaFileCanComeFromTheEnvironmentAsForTheRuntimeAndTheWorkers() {
    CliRun run = CliRun.baton(Map.of("BATON_RABBITMQ_MANAGEMENT_URL", url(),
        "BATON_RABBITMQ_CA_FILE", certificate.caPem().toString()), "dlq", "list", "-o", "name");

    assertThat(run.code()).as(run.err()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).contains("charge-card");
  }

  @Test
  void withoutItTheCliSaysWhichOptionIsMissing() {
    CliRun run = CliRun.baton(Map.of(), "dlq", "list", "--rabbitmq-management-url", url());

    assertThat(run.code()).isEqualTo(ExitCodes.UNREACHABLE);
    assertThat(run.err()).contains("does not trust").contains("--rabbitmq-ca-file");
  }

  @Test
  void aFileThatHoldsNoCertificateIsAUsageError() throws Exception {
    Path notPem = Files.writeString(dir.resolve("not-a-ca.txt"), "hello");

    CliRun run = CliRun.baton(Map.of(), "dlq", "list", "--rabbitmq-management-url", url(),
        "--rabbitmq-ca-file", notPem.toString());

    assertThat(run.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("--rabbitmq-ca-file").contains("not-a-ca.txt");
  }
}
