package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.support.ExitCodes;
import dev.baton.testing.HttpsJsonStub;
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
  static HttpsJsonStub management;

  @BeforeAll
  static void managementApi() throws Exception {
    management = HttpsJsonStub.serving(dir, "/api/queues/", QUEUES); // GET /api/queues/%2F
  }

  @AfterAll
  static void stop() {
    management.close();
  }

  private static String url() {
    return management.managementUrl();
  }

  @Test
  void theCaFileOptionMakesTheCliTrustThePrivateCa() {
    CliRun run = CliRun.baton(Map.of(), "dlq", "list", "--rabbitmq-management-url", url(),
        "--rabbitmq-ca-file", management.caPem().toString());

    assertThat(run.code()).as(run.err()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).contains("q.dlx.payment.charge-card").doesNotContain("q.payment.charge-card ");
  }

  @Test
  void theCaFileCanComeFromTheEnvironmentAsForTheRuntimeAndTheWorkers() {
    CliRun run = CliRun.baton(Map.of("BATON_RABBITMQ_MANAGEMENT_URL", url(),
        "BATON_RABBITMQ_CA_FILE", management.caPem().toString()), "dlq", "list", "-o", "name");

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
