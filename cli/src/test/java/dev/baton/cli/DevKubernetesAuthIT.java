package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.devapi.Kubectl;
import dev.baton.runtime.http.auth.AuthMode;
import dev.baton.sandbox.Sandbox;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton dev --auth kubernetes} with the real kubectl, as a platform team hands out access: a ServiceAccount
 * of team-a bound to {@code baton-instances-edit} in team-a starts instances there, is refused in team-b, nobody
 * without a token gets in, and the instance says who started it.
 */
class DevKubernetesAuthIT {

  @TempDir static Path tmp;
  private static Sandbox infrastructure;
  private static DevStack stack;
  private static Kubectl kubectl;
  private static String token;
  private static final ByteArrayOutputStream printed = new ByteArrayOutputStream();

  @BeforeAll
  static void start() throws Exception {
    Kubectl.executable();
    infrastructure = Sandbox.builder("baton-devauth-test").database().brokerUsers("baton-devauth-").start();
    DevRun dev = DevRun.start(infrastructure, tmp, Duration.ofSeconds(5), true,
        new PrintStream(printed, true, StandardCharsets.UTF_8), null, AuthMode.KUBERNETES);
    stack = dev.stack();
    kubectl = dev.kubectl();
    kubectl.ok("create", "namespace", "team-a");
    kubectl.ok("create", "namespace", "team-b");
    for (String file : new java.io.File(DevRun.orderSaga()).list()) {
      kubectl.ok("apply", "-n", "team-a", "-f", Path.of(DevRun.orderSaga(), file).toString());
    }
    kubectl.ok("create", "serviceaccount", "ci", "-n", "team-a");
    kubectl.ok("create", "rolebinding", "ci-starts", "--clusterrole=baton-instances-edit",
        "--serviceaccount=team-a:ci", "-n", "team-a");
    token = kubectl.ok("create", "token", "ci", "-n", "team-a").trim();
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(kubectl.ok("get", "workflow", "order-fulfilment", "-n", "team-a", "--no-headers")).contains("True"));
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      for (String file : new java.io.File(DevRun.orderSaga()).list()) {
        kubectl.run("delete", "--ignore-not-found", "--timeout=60s", "-n", "team-a", "-f",
            Path.of(DevRun.orderSaga(), file).toString());
      }
    }
    if (infrastructure != null) {
      infrastructure.close();
    }
  }

  /** The CLI's environment: this runtime, no saved login, no kubeconfig token to fall back on. */
  private static Map<String, String> env() {
    return Map.of("BATON_RUNTIME_URL", stack.runtimeUrl(), "XDG_CONFIG_HOME", tmp.resolve("config").toString(),
        "KUBECONFIG", tmp.resolve("no-kubeconfig").toString());
  }

  @Test
  void aServiceAccountBoundToInstancesEditStartsInItsNamespaceAndTheInstanceSaysWhoStartedIt() throws Exception {
    CliRun started = CliRun.baton(env(), "start", "order-fulfilment", "-n", "team-a", "--token", token,
        "-k", "auth-1", "--input", "{\"orderId\":\"auth-1\",\"amount\":42}", "-o", "json");
    assertThat(started.code()).as(started.err()).isZero();
    String id = started.json().get("id").asText();
    assertThat(started.json().get("createdBy").asText()).isEqualTo("system:serviceaccount:team-a:ci");

    CliRun described = CliRun.baton(env(), "describe", id, "--token", token);
    assertThat(described.out()).contains("by system:serviceaccount:team-a:ci").contains("start");
  }

  @Test
  void theSameServiceAccountIsRefusedInAnotherNamespaceWithWhatItLacks() {
    CliRun refused = CliRun.baton(env(), "start", "order-fulfilment", "-n", "team-b", "--token", token,
        "-k", "auth-2", "--input", "{\"orderId\":\"auth-2\",\"amount\":42}");
    assertThat(refused.code()).isEqualTo(1);
    assertThat(refused.err()).contains("403").contains("create").contains("workflows/instances").contains("team-b");
  }

  @Test
  void withoutATokenNobodyGetsInAndTheCliSaysHowToGiveOne() {
    CliRun refused = CliRun.baton(env(), "start", "order-fulfilment", "-n", "team-a",
        "-k", "auth-3", "--input", "{\"orderId\":\"auth-3\",\"amount\":42}");
    assertThat(refused.code()).isEqualTo(1);
    assertThat(refused.err()).contains("401").contains("baton login");
  }

  @Test
  void aSavedLoginIsSentWithoutTokenFlags() throws Exception {
    CliRun login = CliRun.baton(env(), "login", "--token", token);
    assertThat(login.code()).as(login.err()).isZero();
    assertThat(login.out()).contains("as system:serviceaccount:team-a:ci").doesNotContain(token);

    CliRun started = CliRun.baton(env(), "start", "order-fulfilment", "-n", "team-a",
        "-k", "auth-4", "--input", "{\"orderId\":\"auth-4\",\"amount\":42}", "-o", "json");
    assertThat(started.code()).as(started.err()).isZero();

    assertThat(CliRun.baton(env(), "logout").out()).contains("Logged out");
    assertThat(CliRun.baton(env(), "start", "order-fulfilment", "-n", "team-a",
        "-k", "auth-5", "--input", "{\"orderId\":\"auth-5\",\"amount\":42}").code()).isEqualTo(1);
  }
}
