package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.devapi.Kubectl;
import dev.baton.examples.ShippingWorker;
import dev.baton.sandbox.LocalServices;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every command of {@code bin/baton} against a running runtime (the shared in-process dev stack with the order saga):
 * output as a table and as JSON, exit codes, and the errors: the server's message (1), usage (2), unreachable (3).
 */
@ExtendWith(SagaStack.Resolver.class)
class CliAgainstRuntimeIT {

  private static SagaStack saga;

  @BeforeAll
  static void stack(SagaStack s) {
    saga = s;
  }

  /** {@code baton args...} in-process, with what it printed. */
  static CliRun baton(String... args) {
    return CliRun.baton(System.getenv(), args);
  }

  /** A command over the runtime: {@code --runtime-url} of the test stack appended. */
  static CliRun runtime(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--runtime-url");
    all.add(saga.runtimeUrl());
    return baton(all.toArray(String[]::new));
  }

  /** A dlq command: the test vhost and broker appended. */
  static CliRun dlq(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--vhost", saga.vhost.name(), "--rabbitmq-management-url", LocalServices.RABBITMQ_MANAGEMENT_URL,
        "--rabbitmq-host", LocalServices.RABBITMQ_HOST, "--rabbitmq-port", String.valueOf(LocalServices.RABBITMQ_PORT),
        "--rabbitmq-username", LocalServices.RABBITMQ_USERNAME, "--rabbitmq-password", LocalServices.RABBITMQ_PASSWORD));
    return baton(all.toArray(String[]::new));
  }

  private static String key(String what) {
    return "cli-" + what + "-" + UUID.randomUUID().toString().substring(0, 6);
  }

  @Test
  void startGetAndDescribeAnOrderAsTablesAndAsJson() throws Exception {
    String key = key("ok");
    CliRun started = runtime("start", "order-fulfilment", "--business-key", key, "--input", "{\"sku\": \"book\", \"amount\": 30}");
    assertThat(started.code()).as(started.err()).isZero();
    assertThat(started.out()).startsWith("started default/order-fulfilment instance ").contains("(business key " + key + ")");
    String id = started.out().split(" ")[3];

    CliRun again = runtime("start", "order-fulfilment", "-k", key, "-o", "json");
    assertThat(again.code()).isZero();
    assertThat(again.json().path("id").asText()).isEqualTo(id);
    assertThat(runtime("start", "order-fulfilment", "-k", key).out()).contains("was already started", id);

    saga.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(30));

    CliRun list = runtime("get", "order-fulfilment", "--business-key", key);
    assertThat(list.code()).isZero();
    assertThat(list.out().lines().toList()).hasSize(2);
    assertThat(list.out().lines().findFirst().orElseThrow())
        .matches("ID\\s+WORKFLOW\\s+BUSINESS KEY\\s+STATUS\\s+STEP\\s+ATTEMPT\\s+AGE");
    assertThat(list.out()).containsPattern(id + "\\s+order-fulfilment\\s+" + key + "\\s+SUCCEEDED\\s+ship\\s+1\\s+\\S+");

    CliRun listJson = runtime("get", "order-fulfilment", "--business-key", key, "-o", "json");
    assertThat(listJson.json().path("count").asInt()).isEqualTo(1);
    assertThat(listJson.json().path("items").get(0).path("id").asText()).isEqualTo(id);
    assertThat(runtime("get", "order-fulfilment", "--status", "succeeded", "--limit", "500").out()).contains(id);
    assertThat(runtime("get", "order-fulfilment", "--status", "FAILED", "-k", key).out()).contains("No instances");
    assertThat(runtime("get").out()).as("every workflow").contains(id);

    CliRun one = runtime("get", "instance", id);
    assertThat(one.code()).isZero();
    assertThat(one.out()).containsPattern(id + "\\s+order-fulfilment\\s+" + key + "\\s+SUCCEEDED");
    assertThat(runtime("get", "instance", id, "-o", "yaml").out()).contains("id: " + id, "status: SUCCEEDED", "steps:");

    CliRun describe = runtime("describe", id);
    assertThat(describe.code()).isZero();
    assertThat(describe.out()).contains("Instance:     " + id, "Workflow:     default/order-fulfilment (revision",
        "Business key: " + key, "Status:       SUCCEEDED", "Last step:    ship, attempt 1", "Timeline")
        .containsPattern("Trace:        [0-9a-f]{32}")
        .containsPattern("1\\s+reserve-stock\\s+task\\s+reserve\\s+1\\s+SUCCEEDED")
        .containsPattern("2\\s+charge\\s+task\\s+pay\\s+1\\s+SUCCEEDED")
        .containsPattern("3\\s+ship\\s+task\\s+ship\\s+1\\s+SUCCEEDED")
        .doesNotContain("Last error");
    CliRun describeJson = runtime("describe", id, "-o", "json");
    assertThat(describeJson.json().path("steps")).hasSize(3);
  }

  @Test
  void startAndGetWithWaitExitWithHowTheInstanceEnded() throws Exception {
    CliRun ok = runtime("start", "order-fulfilment", "-k", key("wait-ok"), "-i", "{\"sku\": \"book\", \"amount\": 30}",
        "--wait=30s");
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.out()).startsWith("started default/order-fulfilment instance ").contains("): SUCCEEDED after ");

    CliRun declined = runtime("start", "order-fulfilment", "-k", key("wait-declined"), "-i",
        "{\"sku\": \"mug\", \"quantity\": 2, \"card\": \"declined\"}", "--wait", "-o", "json");
    assertThat(declined.code()).as(declined.err()).isEqualTo(5);
    assertThat(declined.json().path("status").asText()).isEqualTo("COMPENSATED");

    saga.applyWorkflow("cli-waits", """
        apiVersion: baton.dev/v1alpha1
        kind: Workflow
        metadata: {name: cli-waits, namespace: default}
        spec:
          entity: parcel
          steps:
            - {name: go, wait: {signal: go}}
        """);
    CliRun running = runtime("start", "cli-waits", "-k", key("wait-running"), "--wait=1s");
    assertThat(running.code()).as(running.err()).isEqualTo(7);
    assertThat(running.err()).contains("is still RUNNING after waiting 1s");
    String id = running.out().split(" ")[3];

    java.util.concurrent.CompletableFuture<CliRun> waiting = java.util.concurrent.CompletableFuture.supplyAsync(
        () -> runtime("get", "instance", id, "--wait=30s"));
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());
    assertThat(runtime("cancel", id).code()).isZero();
    CliRun cancelled = waiting.get(20, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(cancelled.code()).as(cancelled.err()).isEqualTo(6);
    assertThat(cancelled.out()).containsPattern(id + "\\s+cli-waits\\s+\\S+\\s+CANCELLED");

    assertThat(runtime("get", "order-fulfilment", "--wait").code()).as("a list cannot wait").isEqualTo(2);
    assertThat(runtime("get", "instance", id, "--wait=soon").code()).isEqualTo(2);
  }

  /** {@code baton args...} in a thread of its own, printing into {@code out} as it goes (for -w). */
  static java.util.concurrent.CompletableFuture<Integer> running(java.io.StringWriter out, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--runtime-url", saga.runtimeUrl()));
    picocli.CommandLine cli = BatonCli.commandLine(System.getenv());
    cli.setOut(new java.io.PrintWriter(out, true));
    cli.setErr(new java.io.PrintWriter(new java.io.StringWriter(), true));
    java.util.concurrent.CompletableFuture<Integer> code = new java.util.concurrent.CompletableFuture<>();
    Thread t = new Thread(() -> code.complete(cli.execute(all.toArray(String[]::new))), "baton " + args[0]);
    t.setDaemon(true);
    t.start();
    code.whenComplete((c, e) -> t.interrupt()); // cancel(): Ctrl-C, as far as the command can tell
    return code;
  }

  @Test
  void anotherNamespaceWideNameAndWatchingAnInstanceStepByStep() throws Exception {
    Kubectl.Result applied = saga.kubectl.runWithInput("""
        apiVersion: v1
        kind: Namespace
        metadata: {name: cli-team}
        ---
        apiVersion: baton.dev/v1alpha1
        kind: Workflow
        metadata: {name: cli-steps, namespace: cli-team}
        spec:
          entity: parcel
          steps:
            - {name: first, wait: {signal: one}}
            - {name: second, wait: {signal: two}}
        """, "apply", "-f", "-");
    assertThat(applied.exitCode()).as(applied.all()).isZero();
    String prefix = key("steps");
    String[] id = new String[1];
    await("cli-steps runs in cli-team").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
        .until(() -> {
          CliRun started = runtime("start", "cli-steps", "-n", "cli-team", "-k", prefix + "-1", "-o", "name");
          id[0] = started.code() == 0 ? started.out().trim() : null;
          return id[0] != null;
        });
    assertThat(id[0]).startsWith("instance/");
    String instance = id[0].substring("instance/".length());

    java.io.StringWriter watched = new java.io.StringWriter();
    var watch = running(watched, "get", id[0], "-w");
    await().atMost(Duration.ofSeconds(10)).until(() -> watched.toString().contains("first"));
    assertThat(runtime("signal", instance, "one").code()).isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> watched.toString().contains("second"));
    assertThat(watch).as("still watching a running instance").isNotDone();
    assertThat(runtime("signal", instance, "two").code()).isZero();
    assertThat(watch.get(20, java.util.concurrent.TimeUnit.SECONDS)).as(watched.toString()).isZero();
    assertThat(watched.toString().lines().toList()).hasSize(4).first().asString()
        .matches("ID\\s+WORKFLOW\\s+BUSINESS KEY\\s+STATUS\\s+STEP\\s+ATTEMPT\\s+AGE");
    assertThat(watched.toString()).containsPattern("(?s)" + instance + "\\s+cli-steps\\s+\\S+\\s+RUNNING\\s+first.*"
        + instance + "\\s+cli-steps\\s+\\S+\\s+RUNNING\\s+second.*" + instance + "\\s+cli-steps\\s+\\S+\\s+SUCCEEDED");

    CliRun everywhere = runtime("get", "-A", "-o", "wide", "-k", prefix + "-1");
    assertThat(everywhere.code()).as(everywhere.err()).isZero();
    assertThat(everywhere.out()).containsPattern("NAMESPACE\\s+ID\\s+WORKFLOW\\s+BUSINESS KEY\\s+STATUS\\s+STEP"
        + "\\s+ATTEMPT\\s+AGE\\s+REVISION\\s+STARTED\\s+ENDED\\s+CREATED BY\\s+LAST ERROR")
        .containsPattern("cli-team\\s+" + instance + "\\s+cli-steps\\s+" + prefix + "-1\\s+SUCCEEDED\\s+second\\s+1\\s+\\S+\\s+1\\s+");
    assertThat(runtime("get", "-k", prefix + "-1").out()).as("only -n's namespace without -A").contains("No instances");
    assertThat(runtime("get", "cli-steps", "-n", "cli-team", "-o", "name").out()).isEqualTo(id[0] + "\n");
    assertThat(runtime("search", "-A", "--key-prefix", prefix).out()).startsWith("NAMESPACE ").contains("cli-team");

    java.io.StringWriter listed = new java.io.StringWriter();
    var listing = running(listed, "search", "-A", "--key-prefix", prefix, "-w", "-o", "name");
    await().atMost(Duration.ofSeconds(10)).until(() -> listed.toString().equals(id[0] + "\n"));
    String second = runtime("start", "cli-steps", "-n", "cli-team", "-k", prefix + "-2", "-o", "name").out().trim();
    await("the new instance shows").atMost(Duration.ofSeconds(10))
        .until(() -> listed.toString().equals(id[0] + "\n" + second + "\n"));
    assertThat(listing).as("a listing is watched until Ctrl-C").isNotDone();
    listing.cancel(true);
    assertThat(runtime("cancel", second, "-o", "name").out()).as("instance/<id> taken back").isEqualTo(second + "\n");
  }

  @Test
  void startFromAFileOfJsonLinesStartsEachKeyOnceInBatches() throws Exception {
    String prefix = key("file");
    Path file = Files.createTempFile("starts", ".jsonl");
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 1_005; i++) {
      lines.append("{\"businessKey\": \"").append(prefix).append('-').append(i)
          .append("\", \"input\": {\"sku\": \"book\", \"amount\": 1}}\n");
    }
    Files.writeString(file, lines.toString());

    CliRun first = runtime("start", "order-fulfilment", "--from-file", file.toString());
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out()).contains("sent 1000 of 1005 (1000 started, 0 already existed)",
        "sent 1005 of 1005 (1005 started, 0 already existed)");
    CliRun again = runtime("start", "order-fulfilment", "--from-file", file.toString(), "-o", "json");
    assertThat(again.json().path("results")).hasSize(1005)
        .allSatisfy(r -> assertThat(r.path("created").asBoolean()).isFalse());

    Files.writeString(file, "{\"businessKey\": \"" + prefix + "-x\"}\nnot json\n");
    CliRun bad = runtime("start", "order-fulfilment", "--from-file", file.toString());
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("line 2: not JSON");
    assertThat(runtime("get", "order-fulfilment", "--business-key", prefix + "-x").out())
        .doesNotContain(prefix + "-x");
  }

  @Test
  void describeShowsTheFailedStepItsReasonAndTheCompensation() throws Exception {
    String key = key("declined");
    String id = saga.startOrder(key, Map.of("card", "declined"));
    saga.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(30));

    CliRun describe = runtime("describe", id);
    assertThat(describe.code()).isZero();
    assertThat(describe.out()).contains("Status:       COMPENSATED",
            "Last error:   charge (pay, attempt 1): FAILED CARD_DECLINED: the card was declined by the issuer")
        .containsPattern("2\\s+charge\\s+task\\s+pay\\s+1\\s+FAILED\\s+\\S+\\s+\\S+\\s+CARD_DECLINED: the card was declined")
        .containsPattern("3\\s+reserve-stock\\s+<- compensation\\s+release\\s+1\\s+SUCCEEDED");
    assertThat(runtime("get", "instance", id).out()).contains("COMPENSATED", "reserve-stock (compensation)");
  }

  @Test
  void cancelStopsARunningInstanceAndRetrySendsAFailedStepAgain() throws Exception {
    // the carrier fails three times: the ship step stays in flight for 1s + 2s + 4s of retries
    String slow = saga.startOrder(key("cancel"), Map.of("flakyShipping", 3));
    await().atMost(Duration.ofSeconds(20)).until(() -> "ship".equals(saga.instance(slow).path("currentStep").asText()));
    CliRun cancel = runtime("cancel", slow);
    assertThat(cancel.code()).as(cancel.err()).isZero();
    assertThat(cancel.out()).contains("instance " + slow, ": CANCELLED at ship");
    assertThat(runtime("cancel", slow).out()).as("cancelling twice changes nothing").contains(": CANCELLED at ship");

    // more than the stock: the first step fails, nothing to compensate
    String failed = saga.startOrder(key("stock"), Map.of("sku", "poster", "quantity", 99));
    saga.awaitStatus(failed, "FAILED", Duration.ofSeconds(30));
    CliRun retry = runtime("retry", failed, "-o", "json");
    assertThat(retry.code()).as(retry.err()).isZero();
    assertThat(retry.json().path("attempt").asInt()).isEqualTo(2);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      JsonNode i = saga.instance(failed);
      assertThat(i.path("status").asText()).isEqualTo("FAILED");
      assertThat(i.path("steps")).hasSize(2);
    });
    assertThat(runtime("describe", failed).out())
        .containsPattern("2\\s+reserve-stock\\s+task\\s+reserve\\s+2\\s+FAILED\\s+.*OUT_OF_STOCK");
    assertThat(runtime("retry", slow).err()).contains("only FAILED instances can be retried");
    CliRun finished = runtime("cancel", failed);
    assertThat(finished.code()).isEqualTo(1);
    assertThat(finished.err().strip()).startsWith("baton cancel: ").contains("only RUNNING or COMPENSATING", "HTTP 409");
  }

  @Test
  void signalSendsTheBodyToTheWaitingStepWhichOutputsItAndTheInstanceMovesOn() throws Exception {
    saga.applyWorkflow("cli-approval", """
        apiVersion: baton.dev/v1alpha1
        kind: Workflow
        metadata: {name: cli-approval, namespace: default}
        spec:
          entity: parcel
          steps:
            - {name: approval, wait: {signal: approve, timeout: 5m}}
            - {name: ship, service: shipping, command: ship, input: {approvedBy: "steps.approval.output.by"}}
        """);
    String key = key("signal");
    CliRun started = runtime("start", "cli-approval", "-k", key);
    assertThat(started.code()).as(started.err()).isZero();
    String id = started.out().split(" ")[3];
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
        assertThat(saga.instance(id).path("currentStep").asText()).isEqualTo("approval"));

    CliRun badBody = runtime("signal", id, "approve", "-d", "{\"by\": ana}");
    assertThat(badBody.code()).as("a body that is not JSON is a usage error").isEqualTo(2);
    assertThat(badBody.out()).isEmpty();
    assertThat(badBody.err()).contains("--data must be JSON such as", "got: {\"by\": ana}");
    CliRun unknown = runtime("signal", UUID.randomUUID().toString(), "approve", "-d", "{}");
    assertThat(unknown.code()).isEqualTo(1);
    assertThat(unknown.err().strip()).startsWith("baton signal: no instance ").endsWith("(HTTP 404 NotFound)");
    assertThat(saga.instance(id).path("status").asText()).as("nothing was sent").isEqualTo("RUNNING");

    CliRun signal = runtime("signal", id, "approve", "-d", "{\"by\":\"ana\"}");
    assertThat(signal.code()).as(signal.err()).isZero();
    assertThat(signal.out()).startsWith("signal approve stored for instance " + id + " (cli-approval, business key "
        + key + "): ");
    JsonNode i = saga.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(30));
    JsonNode approval = i.path("steps").get(0);
    assertThat(approval.path("name").asText()).isEqualTo("approval");
    assertThat(approval.path("status").asText()).isEqualTo("SUCCEEDED");
    assertThat(approval.path("output")).as("the wait's output is the signal's body")
        .isEqualTo(new ObjectMapper().readTree("{\"by\": \"ana\"}"));
    assertThat(saga.example("shipping", ShippingWorker.class).deliveries(key)).as("and the instance moved on to ship")
        .hasSize(1);
    assertThat(runtime("describe", id).out()).containsPattern("approval\\s+wait\\s+.*SUCCEEDED");

    CliRun finished = runtime("signal", id, "approve", "-o", "json");
    assertThat(finished.code()).as("a finished instance takes no signal").isEqualTo(1);
    assertThat(finished.err().strip()).startsWith("baton signal: ").contains("HTTP 409");
  }

  @Test
  void errorsSayWhatIsWrongWithAnExitCodeThatMeansIt() throws Exception {
    String unknown = UUID.randomUUID().toString();
    CliRun notFound = runtime("describe", unknown);
    assertThat(notFound.code()).isEqualTo(1);
    assertThat(notFound.out()).isEmpty();
    assertThat(notFound.err().strip()).isEqualTo("baton describe: no instance " + unknown + " (HTTP 404 NotFound)");
    assertThat(runtime("get", "instance", unknown, "-o", "json").code()).isEqualTo(1);
    CliRun noWorkflow = runtime("start", "no-such-workflow", "-k", "x");
    assertThat(noWorkflow.code()).isEqualTo(1);
    assertThat(noWorkflow.err()).contains("no Workflow 'no-such-workflow' in namespace 'default'");

    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    CliRun unreachable = baton("get", "order-fulfilment", "--runtime-url", "http://127.0.0.1:" + closed);
    assertThat(unreachable.code()).isEqualTo(3);
    assertThat(unreachable.err().strip().lines()).singleElement().isEqualTo("baton get: cannot reach the Baton runtime at"
        + " http://127.0.0.1:" + closed + " (connection refused): is `bin/baton dev` running? Otherwise point"
        + " --runtime-url or BATON_RUNTIME_URL at it");
    assertThat(baton("describe", unknown, "--runtime-url", "http://127.0.0.1:" + closed).code()).isEqualTo(3);

    assertThat(runtime("start", "order-fulfilment").code()).as("no business key").isEqualTo(2);
    CliRun badInput = runtime("start", "order-fulfilment", "-k", "x", "--input", "[1, 2]");
    assertThat(badInput.code()).isEqualTo(2);
    assertThat(badInput.err()).contains("--input must be a JSON object");
    assertThat(runtime("start", "order-fulfilment", "-k", "x", "--input", "@/no/such/file.json").code()).isEqualTo(2);
    assertThat(runtime("get", "--status", "LOST").code()).isEqualTo(2);
    assertThat(runtime("get", "--limit", "0").code()).isEqualTo(2);
    assertThat(runtime("get", "a", "b").code()).isEqualTo(2);
    assertThat(runtime("get", "instance").code()).isEqualTo(2);
    assertThat(runtime("describe").code()).isEqualTo(2);
    assertThat(baton("no-such-command").code()).isEqualTo(2);
    assertThat(baton("get", "--runtime-url", "not a url").code()).isEqualTo(2);
    assertThat(dlq("dlq", "replay", "q.payment.pay").err()).contains("is not a dead-letter queue");
    assertThat(dlq("dlq", "replay", "q.payment.pay").code()).isEqualTo(2);
    assertThat(dlq("dlq", "replay", "q.dlx.payment.pay", "--count", "1", "--message-id", "x").code()).isEqualTo(2);

    CliRun help = baton("--help");
    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("start", "describe", "signal", "dlq", "Exit codes:", "3   the runtime");
  }

  @Test
  void aDeadLetterIsListedPeekedAndReplayedToItsCommandQueueWithItsRetriesReset() throws Exception {
    String dlqName = "q.dlx.shipping.ship";
    // six failing deliveries: the four of the quick staircase dead-letter the command, the order is compensated
    String key = key("dead");
    String id = saga.startOrder(key, Map.of("flakyShipping", 6));
    saga.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(40));
    ShippingWorker shipping = saga.example("shipping", ShippingWorker.class);
    assertThat(shipping.deliveries(key)).extracting(ShippingWorker.Delivery::retries).containsExactly(0, 1, 2, 3);
    String messageId = shipping.deliveries(key).get(0).messageId();
    await().atMost(Duration.ofSeconds(10)).until(() -> saga.messagesIn(dlqName) == 1);

    // the management API's statistics lag by a few seconds
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
      CliRun list = dlq("dlq", "list");
      assertThat(list.code()).as(list.err()).isZero();
      assertThat(list.out()).containsPattern(dlqName + "\\s+shipping\\s+ship\\s+1\\n")
          .containsPattern("q.dlx.payment.pay\\s+payment\\s+pay\\s+0").contains("1 dead letter in vhost");
    });
    assertThat(dlq("dlq", "list", "--service", "payment").out()).doesNotContain("shipping").contains("q.dlx.payment.pay");
    JsonNode listJson = dlq("dlq", "list", "--service", "shipping", "-o", "json").json();
    assertThat(listJson.path("queues").get(0).path("name").asText()).isEqualTo(dlqName);
    assertThat(listJson.path("queues").get(0).path("messages").asLong()).isEqualTo(1);

    CliRun peek = dlq("dlq", "list", "--queue", dlqName);
    assertThat(peek.code()).as(peek.err()).isZero();
    assertThat(peek.out()).containsPattern(messageId + "\\s+service.shipping.ship\\s+" + id + "\\s+ship\\s+"
        + "CarrierUnavailableException: carrier API timed out \\(simulated: flakyShipping=6, delivery 4\\)\\s+\\S+");
    JsonNode peekJson = dlq("dlq", "list", "--queue", dlqName, "-o", "json").json().path("messages").get(0);
    assertThat(peekJson.path("messageId").asText()).isEqualTo(messageId);
    assertThat(peekJson.path("properties").path("headers").path("baton-retries").asInt()).isEqualTo(3);
    assertThat(saga.messagesIn(dlqName)).as("peeking consumes nothing").isEqualTo(1);
    assertThat(dlq("dlq", "list", "--service", "shipping", "-o", "name").out()).isEqualTo("queue/" + dlqName + "\n");
    assertThat(dlq("dlq", "list", "--queue", dlqName, "-o", "name").out())
        .isEqualTo("message/" + dlqName + "/" + messageId + "\n");
    assertThat(dlq("dlq", "list", "--queue", dlqName, "-o", "wide").out())
        .containsPattern("MESSAGE ID\\s+ROUTING KEY\\s+INSTANCE\\s+STEP\\s+EXCEPTION\\s+AGE\\s+RETRIES\\s+REPLAYS\\s+PARKED")
        .containsPattern("delivery 4\\)\\s+\\S+\\s+3\\s+\\d{4}-");

    CliRun dryRun = dlq("dlq", "replay", dlqName, "--dry-run");
    assertThat(dryRun.code()).as(dryRun.err()).isZero();
    assertThat(dryRun.out()).contains(messageId, "shipping.command.topic.ex -> service.shipping.ship",
        "Would replay 1 message", "nothing moved");
    assertThat(saga.messagesIn(dlqName)).isEqualTo(1);
    assertThat(dlq("dlq", "replay", dlqName, "--message-id", "not-there").code()).isEqualTo(1);
    assertThat(saga.messagesIn(dlqName)).isEqualTo(1);

    CliRun replay = dlq("dlq", "replay", dlqName, "--message-id", messageId, "-o", "json");
    assertThat(replay.code()).as(replay.err()).isZero();
    assertThat(replay.json().path("replayed").get(0).path("routingKey").asText()).isEqualTo("service.shipping.ship");
    assertThat(replay.json().path("left").asLong()).isZero();
    assertThat(saga.messagesIn(dlqName)).isZero();
    // back on q.shipping.ship with the same message_id and a fresh staircase: the worker sees baton-retries 0
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(shipping.deliveries(key)).hasSizeGreaterThan(4));
    ShippingWorker.Delivery replayed = shipping.deliveries(key).get(4);
    assertThat(replayed.messageId()).isEqualTo(messageId);
    assertThat(replayed.retries()).isZero();

    assertThat(dlq("dlq", "replay", "q.dlx.payment.pay").out()).contains("nothing to replay (the queue is empty)");
    CliRun noQueue = dlq("dlq", "replay", "q.dlx.nosuch.thing");
    assertThat(noQueue.code()).isEqualTo(1);
    assertThat(noQueue.err()).contains("no queue q.dlx.nosuch.thing");
    CliRun noBroker = baton("dlq", "list", "--rabbitmq-management-url", "http://127.0.0.1:1/api/");
    assertThat(noBroker.code()).isEqualTo(3);
    assertThat(noBroker.err()).contains("cannot reach the RabbitMQ management API at http://127.0.0.1:1/api/");
  }
}
