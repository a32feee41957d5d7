package dev.baton.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.json.Json;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.suite.Rig;
import dev.baton.runtime.app.BatonRuntime;
import dev.baton.runtime.app.RuntimeSettings;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime API's bearer tokens: the full token from a file (a mounted Secret), a read-only token, 401 with
 * {@code WWW-Authenticate: Bearer} and a JSON error, 403 for writes with the read-only token, {@code /healthz} open,
 * {@code /metrics} behind the tokens once a read-only token exists; and the CLI sending {@code --token} or
 * {@code BATON_RUNTIME_TOKEN}.
 */
class ApiTokenIT {

  static final String TOKEN = "full-" + UUID.randomUUID();
  static final String READ = "read-" + UUID.randomUUID();
  static final String INSTANCES = "/api/v1/namespaces/default/workflows/order/instances";
  static Rig rig;

  @BeforeAll
  static void start(@TempDir Path dir) throws Exception {
    rig = Rig.create(Infra.get(), "token");
    Path tokenFile = dir.resolve("token");
    Files.writeString(tokenFile, TOKEN + "\n"); // as kubectl create secret --from-file leaves it
    Map<String, String> env = new HashMap<>(rig.runtime().env(0));
    env.remove("BATON_API_TOKEN");
    env.put("BATON_API_TOKEN_FILE", tokenFile.toString());
    env.put("BATON_API_READ_TOKEN", READ);
    RuntimeSettings settings = RuntimeSettings.fromEnvironment(env);
    assertThat(settings.apiToken()).isEqualTo(TOKEN);
    assertThat(settings.toString()).doesNotContain(TOKEN).doesNotContain(READ).contains("apiToken=(set)");
    rig.runtime().startInProcess(settings);
  }

  @AfterAll
  static void stop() {
    rig.close();
  }

  static HttpResponse<String> call(String method, String path, String authorization) {
    HttpRequest.Builder b = HttpRequest.newBuilder(rig.api().url(path)).header("Content-Type", "application/json")
        .method(method, "POST".equals(method)
            ? HttpRequest.BodyPublishers.ofString("{\"businessKey\":\"tok-" + UUID.randomUUID() + "\"}")
            : HttpRequest.BodyPublishers.noBody());
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return rig.api().raw(b);
  }

  @Test
  void missingOrInvalidTokenIs401WithAChallengeAndJson() {
    for (String auth : new String[] {null, "", "Bearer", "Bearer wrong", "Basic " + TOKEN, "Bearer " + TOKEN + "x",
        "Bearer " + TOKEN.substring(1), "Token " + TOKEN}) {
      for (String[] call : new String[][] {{"GET", INSTANCES}, {"POST", INSTANCES}, {"GET", "/api/v1/counts"},
          {"GET", "/metrics"}, {"POST", "/api/v1/instances/" + UUID.randomUUID() + "/cancel"}}) {
        HttpResponse<String> r = call(call[0], call[1], auth);
        assertThat(r.statusCode()).as(call[0] + " " + call[1] + " with " + auth).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate")).get().asString().startsWith("Bearer realm=\"baton\"");
        assertThat(r.headers().firstValue("Content-Type")).get().asString().startsWith("application/json");
        assertThat(Json.parseOrNull(r.body()).get("error").asText()).isEqualTo("Unauthorized");
        assertThat(r.body()).doesNotContain(TOKEN).doesNotContain(READ);
      }
    }
  }

  @Test
  void theFullTokenMayDoEverythingTheReadTokenOnlyRead() {
    assertThat(call("POST", INSTANCES, "Bearer " + TOKEN).statusCode()).isEqualTo(201);
    assertThat(call("POST", INSTANCES, "bearer " + TOKEN).statusCode()).as("scheme is case-insensitive").isEqualTo(201);
    assertThat(call("GET", INSTANCES, "Bearer " + READ).statusCode()).isEqualTo(200);
    assertThat(call("GET", "/api/v1/counts", "Bearer " + READ).statusCode()).isEqualTo(200);
    assertThat(call("GET", "/metrics", "Bearer " + READ).statusCode()).isEqualTo(200);
    assertThat(call("GET", "/metrics", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
    HttpResponse<String> write = call("POST", INSTANCES, "Bearer " + READ);
    assertThat(write.statusCode()).isEqualTo(403);
    assertThat(Json.parseOrNull(write.body()).get("error").asText()).isEqualTo("Forbidden");
    assertThat(Json.parseOrNull(write.body()).get("message").asText()).contains("read-only token may not POST");
    assertThat(call("POST", "/api/v1/instances/" + UUID.randomUUID() + "/retry", "Bearer " + READ).statusCode())
        .isEqualTo(403);
  }

  @Test
  void healthStaysOpenForProbes() {
    for (String probe : new String[] {"/healthz", "/livez"}) {
      HttpResponse<String> r = call("GET", probe, null);
      assertThat(r.statusCode()).as(probe).isEqualTo(200);
      assertThat(Json.parseOrNull(r.body()).get("status").asText()).as(probe).isEqualTo("UP");
    }
  }

  @Test
  void withoutAReadTokenMetricsStayOpenAndAReadTokenAloneIsRefused() throws Exception {
    try (Rig other = Rig.create(Infra.get(), "token-open")) {
      BatonRuntime open = other.runtime().startInProcess(other.runtime().settings()); // BATON_API_TOKEN only
      assertThat(other.api().raw(HttpRequest.newBuilder(other.api().url("/metrics")).GET()).statusCode())
          .isEqualTo(200);
      assertThat(other.api().raw(HttpRequest.newBuilder(other.api().url("/api/v1/counts")).GET()).statusCode())
          .isEqualTo(401);
      open.close();
      assertThatThrownBy(() -> other.runtime().startInProcess(other.runtime().settings().toBuilder().apiToken(null)
          .apiReadToken("r").build())).hasMessageContaining("BATON_API_READ_TOKEN is set but BATON_API_TOKEN is not");
    }
    Map<String, String> both = Map.of("BATON_API_TOKEN", "a", "BATON_API_TOKEN_FILE", "/nowhere");
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(both)).hasMessageContaining("not both");
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(Map.of("BATON_API_TOKEN_FILE", "/no/such/file")))
        .hasMessageContaining("BATON_API_TOKEN_FILE: expected a readable file, got '/no/such/file'");
  }

  @Test
  void theCliSendsItsToken() throws Exception {
    String url = "http://127.0.0.1:" + rig.runtime().port();
    Cli none = cli(Map.of(), "get", "order", "--runtime-url", url);
    assertThat(none.exit).isEqualTo(1);
    assertThat(none.err).contains("HTTP 401 Unauthorized").contains("pass --token, set BATON_RUNTIME_TOKEN or run `baton login`");
    Cli flag = cli(Map.of(), "get", "order", "--runtime-url", url, "--token", READ);
    assertThat(flag.exit).as(flag.err).isZero();
    Cli env = cli(Map.of("BATON_RUNTIME_TOKEN", TOKEN), "start", "order", "-k", "cli-1", "--runtime-url", url);
    assertThat(env.exit).as(env.err).isZero();
    assertThat(env.out).contains("started default/order instance");
    Cli readOnly = cli(Map.of("BATON_RUNTIME_TOKEN", READ), "start", "order", "-k", "cli-2", "--runtime-url", url);
    assertThat(readOnly.exit).isEqualTo(1);
    assertThat(readOnly.err).contains("HTTP 403 Forbidden");
    for (Cli c : List.of(none, flag, env, readOnly)) {
      assertThat(c.out + c.err).doesNotContain(TOKEN).doesNotContain(READ);
    }
  }

  record Cli(int exit, String out, String err) {}

  /** {@code bin/baton} as its own process (the CLI's main with this classpath). */
  static Cli cli(Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "dev.baton.cli.BatonCli"));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile("cli", ".out");
    Path err = Files.createTempFile("cli", ".err");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().remove("BATON_RUNTIME_TOKEN");
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    Cli result = new Cli(p.exitValue(), Files.readString(out), Files.readString(err));
    Files.delete(out);
    Files.delete(err);
    return result;
  }
}
