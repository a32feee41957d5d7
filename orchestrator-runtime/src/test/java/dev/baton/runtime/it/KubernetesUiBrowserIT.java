package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.NS;
import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.runtime.http.auth.AuthMode;
import dev.baton.runtime.it.RuntimeHarness.Response;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;

/**
 * The web UI in Kubernetes mode, in Debian's headless Chromium: a Kubernetes token signs in, the pages show who
 * started an instance and who did what to it, and what RBAC does not allow answers a page that says what was
 * missing, with a way to sign in as someone else.
 */
class KubernetesUiBrowserIT {

  static final Duration WITHIN = Duration.ofSeconds(30);
  static final String CI = "system:serviceaccount:" + NS + ":ci";
  static final String CI_TOKEN = "eyJhbGciOiJSUzI1NiJ9.ui-ci.c2lnbmF0dXJl";
  static final String READER = "system:serviceaccount:" + NS + ":dashboard";
  static final String READER_TOKEN = "eyJhbGciOiJSUzI1NiJ9.ui-dashboard.c2lnbmF0dXJl";
  static final String TEAM_B = "system:serviceaccount:team-b:ops";
  static final String TEAM_B_TOKEN = "eyJhbGciOiJSUzI1NiJ9.ui-team-b.c2lnbmF0dXJl";
  static final FakeClusterAuth CLUSTER = new FakeClusterAuth()
      .token(CI_TOKEN, CI).token(READER_TOKEN, READER)
      .allow(CI, "create", "workflows/instances", NS)
      .allow(CI, "get", "workflows/instances", NS)
      .allow(CI, "list", "workflows/instances", NS)
      .allow(CI, "delete", "workflows/instances", NS)
      .allow(READER, "get", "workflows/instances", NS)
      .allow(READER, "list", "workflows/instances", NS)
      .token(TEAM_B_TOKEN, TEAM_B)
      .allow(TEAM_B, "get", "workflows/instances", "team-b")
      .allow(TEAM_B, "list", "workflows/instances", "team-b")
      .allow(TEAM_B, "delete", "workflows/instances", "team-b");

  static RuntimeHarness h;
  static String ui;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("k8sui", CLUSTER);
    ui = "http://127.0.0.1:" + h.startRuntime(h.settings().toBuilder().auth(AuthMode.KUBERNETES).build()).httpPort()
        + "/ui/";
    h.apply("ui-held", spec("order", step("reserve", "k8s-ui-inventory", "reserve", null)));
    h.worker().serve("q.k8s-ui-inventory.reserve", "k8s-ui-inventory", "reserve", c -> Reply.HOLD);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void aKubernetesTokenSignsInAndWhatRbacDoesNotAllowSaysWhatWasMissing() throws Exception {
    Response started = h.post("/api/v1/namespaces/" + NS + "/workflows/ui-held/instances",
        "{\"businessKey\":\"k8s-ui-1\"}", CI_TOKEN, null);
    assertThat(started.status()).as(started.text()).isEqualTo(201);
    UUID id = UUID.fromString(started.json().get("id").asText());

    try (Browser b = Browser.laptop()) {
      b.driver.get(ui + "instances/" + id);
      assertThat(b.driver.getCurrentUrl()).contains("/ui/login");
      assertThat(b.text()).contains("Kubernetes token", "kubectl create token").doesNotContain("k8s-ui-1");
      b.screenshot("k8s-login");
      b.driver.findElement(By.id("token")).sendKeys("eyJhbGciOiJSUzI1NiJ9.forged.c2lnbmF0dXJl");
      b.driver.findElement(By.id("sign-in")).click();
      awaitText(b, "not valid");

      // a reader: sees the instance, who started it and who did what
      b.driver.findElement(By.id("token")).sendKeys(READER_TOKEN);
      b.driver.findElement(By.id("sign-in")).click();
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().endsWith("/ui/instances/" + id));
      awaitText(b, "signed in as " + READER);
      assertThat(b.driver.findElement(By.id("created-by")).getText()).isEqualTo(CI);
      assertThat(b.driver.findElement(By.cssSelector("#audit tr[data-action='start']")).getText()).contains(CI);
      Object cookies = ((JavascriptExecutor) b.driver).executeScript("return document.cookie;");
      assertThat(String.valueOf(cookies)).as("the session, the token itself, is HttpOnly")
          .doesNotContain("baton-session").doesNotContain(READER_TOKEN);
      b.screenshot("k8s-instance-as-reader");

      // its cancel is refused: a page that says what was missing, and offers to sign in as someone else
      b.driver.findElement(By.id("cancel")).click();
      b.driver.switchTo().alert().accept();
      awaitText(b, READER + " may not delete workflows/instances in namespace " + NS + " (Workflow ui-held)");
      b.screenshot("k8s-refused-cancel");
      assertThat(h.status(id)).isEqualTo("RUNNING");

      // a page of another team's namespace is refused too
      b.driver.get(ui + "workflows/team-b/ui-held");
      awaitText(b, READER + " may not list workflows/instances in namespace team-b");
      b.screenshot("k8s-refused-page");

      // the board shows the namespaces the reader may list
      b.driver.get(ui);
      awaitText(b, "ui-held");

      // signed in as someone who may cancel: the cancel goes through and is on the instance's list of actions
      b.driver.get(ui + "instances/" + id);
      awaitText(b, "signed in as " + READER);
      b.driver.findElement(By.id("cancel")).click();
      b.driver.switchTo().alert().accept();
      // the refused page comes after the form's round trip: wait for it before following its link
      awaitText(b, READER + " may not delete workflows/instances in namespace " + NS + " (Workflow ui-held)");
      b.driver.findElement(By.id("sign-in-again")).click();
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().contains("/ui/login"));
      b.driver.findElement(By.id("token")).sendKeys(CI_TOKEN);
      b.driver.findElement(By.id("sign-in")).click();
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().endsWith("/ui/instances/" + id));
      awaitText(b, "signed in as " + CI);
      b.driver.findElement(By.id("cancel")).click();
      b.driver.switchTo().alert().accept();
      await().atMost(WITHIN).untilAsserted(() -> assertThat(h.status(id)).isEqualTo("CANCELLED"));
      await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> assertThat(
          b.driver.findElement(By.cssSelector("#audit tr[data-action='cancel']")).getText()).contains(CI));
      b.screenshot("k8s-cancelled-by-ci");

      // signing out clears the session
      b.driver.findElement(By.cssSelector("header form button")).click();
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().contains("/ui/login"));
      b.driver.get(ui + "instances/" + id);
      assertThat(b.driver.getCurrentUrl()).contains("/ui/login");
    }
  }

  @Test
  void bulkOperationsAreCountedForAnyoneWhoMayListButRunOnlyByWhomRbacAllowsTheActionAndListedToWhoMaySeeThem()
      throws Exception {
    java.util.List<UUID> held = new java.util.ArrayList<>();
    for (String key : java.util.List.of("k8s-bulk-1", "k8s-bulk-2")) {
      Response started = h.post("/api/v1/namespaces/" + NS + "/workflows/ui-held/instances",
          "{\"businessKey\":\"" + key + "\"}", CI_TOKEN, null);
      assertThat(started.status()).as(started.text()).isEqualTo(201);
      held.add(UUID.fromString(started.json().get("id").asText()));
    }
    Response teamB = h.post("/api/v1/operations", "{\"action\":\"cancel\",\"filter\":{\"namespace\":\"team-b\"}}",
        TEAM_B_TOKEN, null);
    assertThat(teamB.status()).as(teamB.text()).isEqualTo(202);
    String teamBOperation = teamB.json().get("id").asText();
    String filter = "operations/confirm?action=cancel&namespace=" + NS + "&workflow=ui-held&businessKeyPrefix=k8s-bulk-";

    try (Browser b = Browser.laptop()) {
      b.driver.get(ui + filter);
      b.driver.findElement(By.id("token")).sendKeys(READER_TOKEN);
      b.driver.findElement(By.id("sign-in")).click();
      // a reader may count (list) but not cancel (delete): the count, and the button off with the reason
      await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> assertThat(
          b.driver.findElement(By.id("question")).getText()).startsWith("Cancel 2 instances of " + NS + "/ui-held"));
      awaitText(b, "You may not delete workflows/instances in namespace " + NS + ": the operation would be refused.");
      assertThat(b.driver.findElement(By.id("confirm")).isEnabled()).isFalse();
      b.screenshot("k8s-bulk-refused");
      // the list shows what the reader may see: not team-b's operation
      b.driver.get(ui + "operations");
      awaitText(b, "Bulk operations");
      assertThat(b.driver.findElements(By.cssSelector("tr[data-operation='" + teamBOperation + "']"))).isEmpty();

      b.driver.findElement(By.cssSelector("header form button")).click(); // sign out, in as ci
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().contains("/ui/login"));
      b.driver.get(ui + filter);
      b.driver.findElement(By.id("token")).sendKeys(CI_TOKEN);
      b.driver.findElement(By.id("sign-in")).click();
      await().atMost(WITHIN).ignoreExceptions().until(() -> b.driver.findElement(By.id("confirm")).isEnabled());
      b.driver.findElement(By.id("confirm")).click();
      await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> assertThat(
          b.driver.findElement(By.id("operation-counts")).getText()).isEqualTo("2 of 2 (100 %): 2 done, 0 failed"));
      assertThat(b.driver.findElement(By.id("operation-created-by")).getText()).isEqualTo(CI);
      String operation = b.driver.getCurrentUrl().replaceFirst(".*/ui/operations/([0-9a-f-]{36}).*", "$1");
      b.screenshot("k8s-bulk-done");
      b.driver.get(ui + "operations");
      await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> assertThat(b.driver.findElement(
          By.cssSelector("tr[data-operation='" + operation + "']")).getText()).contains("DONE", "2 of 2", CI));
      assertThat(b.driver.findElements(By.cssSelector("tr[data-operation='" + teamBOperation + "']"))).isEmpty();
    }
    for (UUID id : held) {
      await().atMost(WITHIN).untilAsserted(() -> assertThat(h.status(id)).isEqualTo("CANCELLED"));
    }
  }

  private static void awaitText(Browser b, String text) {
    await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> assertThat(b.text()).contains(text));
  }
}
