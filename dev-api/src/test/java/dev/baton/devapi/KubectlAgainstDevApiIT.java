package dev.baton.devapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/** The real kubectl against the dev API: what a developer types in the README's quickstart, and its errors. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KubectlAgainstDevApiIT {

  private static final Path EXAMPLES = repoRoot().resolve("examples/order-saga");

  @TempDir
  static Path tmp;

  private static DevApiServer api;
  private static Kubectl kubectl;

  @BeforeAll
  static void start() {
    Kubectl.executable();
    api = DevApiServer.start("127.0.0.1", 0);
    kubectl = new Kubectl(api.writeKubeconfig(tmp.resolve("kubeconfig")), tmp.resolve("kube-cache"));
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
  }

  @Test
  @Order(1)
  void discoveryListsTheBatonKindsWithTheirShortNames() {
    String resources = kubectl.ok("api-resources", "--api-group=baton.dev");
    // Short names no other project uses (Argo Workflows has workflows/wf), and the category baton.
    assertThat(resources).contains("workflows", "bwf", "workerservices", "bws", "retrypolicies", "brp", "baton");
    assertThat(kubectl.ok("version")).contains("Server Version: " + Discovery.GIT_VERSION);
  }

  @Test
  @Order(2)
  void appliesTheOrderSagaAndShowsThePrinterColumns() {
    String applied = kubectl.ok("apply", "-f", EXAMPLES.toString());
    assertThat(applied).contains("retrypolicy.baton.dev/quick created", "workerservice.baton.dev/payment created",
        "workflow.baton.dev/order-fulfilment created");

    assertThat(header(kubectl.ok("get", "workflows")))
        .containsExactly("NAME", "STEPS", "READY", "PAUSED", "RUNNING", "SUCCEEDED", "FAILED", "COMPENSATED", "AGE");
    // The schedules' columns: "LAST FIRE" and "NEXT FIRE", two words each.
    assertThat(header(kubectl.ok("get", "workflows", "-o", "wide")))
        .containsExactly("NAME", "ENTITY", "STEPS", "READY", "REASON", "PAUSED", "RUNNING", "SUCCEEDED", "FAILED",
            "COMPENSATED", "LAST", "FIRE", "NEXT", "FIRE", "AGE");
    assertThat(header(kubectl.ok("get", "workerservices")))
        .containsExactly("NAME", "SERVICE", "COMMANDS", "READY", "PAUSED", "MESSAGES", "DEADLETTERS", "AGE");
    assertThat(header(kubectl.ok("get", "retrypolicies")))
        .containsExactly("NAME", "ATTEMPTS", "DELAYS", "READY", "AGE");
    assertThat(kubectl.ok("get", "bws")).contains("inventory", "payment", "shipping", "sms");
    assertThat(kubectl.ok("get", "brp", "quick", "--no-headers")).startsWith("quick").contains(" 4 ");
    assertThat(kubectl.ok("get", "baton")).as("every kind of Baton at once")
        .contains("workerservice.baton.dev/payment", "workflow.baton.dev/order-fulfilment", "retrypolicy.baton.dev/quick");

    // again: unchanged; then an edit goes through kubectl's three-way merge patch
    assertThat(kubectl.ok("apply", "-f", EXAMPLES.toString())).contains("workflow.baton.dev/order-fulfilment unchanged");
  }

  @Test
  @Order(2)
  void appliesTheNestedStepsOfTheOrderApprovalAndRefusesDuplicatesInsideABranch() {
    String approval = repoRoot().resolve("examples/order-approval").toString();
    String applied = kubectl.ok("apply", "-f", approval);
    assertThat(applied).contains("workerservice.baton.dev/risk created", "workflow.baton.dev/order-approval created");
    assertThat(kubectl.ok("get", "workflow", "order-approval", "-o",
        "jsonpath={.spec.steps[2].choice[0].steps[0].wait.signal}")).isEqualTo("approve");
    assertThat(kubectl.ok("explain", "workflow.spec.steps.parallel.steps"))
        .contains("The branch's steps, in order.");

    Kubectl.Result duplicates = kubectl.runWithInput("""
        apiVersion: baton.dev/v1alpha1
        kind: Workflow
        metadata: {name: branch-twice}
        spec:
          entity: order
          steps:
            - name: checks
              parallel:
                - steps: [{name: fraud, service: risk, command: score}, {name: fraud, delay: 1s}]
                - steps: [{name: authorize, service: payment, command: authorize}]
        """, "apply", "-f", "-");
    assertThat(duplicates.exitCode()).isNotZero();
    assertThat(duplicates.err()).contains("Workflow \"branch-twice\" is invalid",
        "spec.steps[0].parallel[0].steps[1]: Duplicate value: map[string]interface {}{\"name\":\"fraud\"}");

    Kubectl.Result twoKinds = kubectl.runWithInput("""
        apiVersion: baton.dev/v1alpha1
        kind: Workflow
        metadata: {name: two-kinds}
        spec:
          entity: order
          steps: [{name: pause, service: risk, command: score, delay: 1s}]
        """, "apply", "-f", "-");
    assertThat(twoKinds.exitCode()).isNotZero();
    assertThat(twoKinds.err()).contains("Workflow \"two-kinds\" is invalid",
        "spec.steps[0]: Invalid value: \"object\": must be valid to one and only one schema");
    assertThat(kubectl.run("get", "workflow", "two-kinds").exitCode()).isNotZero();
    kubectl.ok("delete", "-f", approval);
  }

  @Test
  @Order(3)
  void statusWrittenByTheOperatorShowsInTheColumns() {
    kubectl.ok("patch", "workflow", "order-fulfilment", "--subresource=status", "--type=merge", "-p",
        "{\"status\":{\"steps\":3,\"running\":2,\"succeeded\":7,\"failed\":1,"
            + "\"nextFire\":\"2030-01-01T02:00:00Z\","
            + "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"Reconciled\"}]}}");
    kubectl.ok("patch", "workflow", "order-fulfilment", "--type=merge", "-p", "{\"spec\":{\"paused\":true}}");
    List<String> row = List.of(kubectl.ok("get", "bwf", "order-fulfilment", "--no-headers").trim().split("\\s+"));
    assertThat(row.subList(0, 7)).containsExactly("order-fulfilment", "3", "True", "true", "2", "7", "1");
    assertThat(row.get(7)).matches("\\d+s");
    assertThat(kubectl.ok("get", "bwf", "order-fulfilment", "-o", "wide")).contains("2030-01-01T02:00:00Z");
    kubectl.ok("patch", "workflow", "order-fulfilment", "--type=merge", "-p", "{\"spec\":{\"paused\":false}}");
  }

  @Test
  @Order(4)
  void editsApplyAsThreeWayMergeAndYamlShowsTheStoredObject() throws IOException {
    String edited = java.nio.file.Files.readString(EXAMPLES.resolve("50-workflow.yaml"), StandardCharsets.UTF_8)
        .replace("timeout: 30s", "timeout: 45s");
    Kubectl.Result r = kubectl.runWithInput(edited, "apply", "-f", "-");
    assertThat(r.exitCode()).as(r.all()).isZero();
    assertThat(r.out()).contains("workflow.baton.dev/order-fulfilment configured");

    String yaml = kubectl.ok("get", "workflow", "order-fulfilment", "-o", "yaml");
    // Generation 4: created, paused and resumed (Order 3), then this edit.
    assertThat(yaml).contains("kind: Workflow", "entity: order", "timeout: 45s", "generation: 4",
        "kubectl.kubernetes.io/last-applied-configuration", "succeeded: 7");
  }

  @Test
  @Order(5)
  void describeShowsTheSpecAndTheObjectsEvents() {
    String uid = kubectl.ok("get", "bws", "payment", "-o", "jsonpath={.metadata.uid}");
    Kubectl.Result event = kubectl.runWithInput("""
        apiVersion: v1
        kind: Event
        metadata: {name: payment.dead-letter, namespace: default}
        involvedObject: {apiVersion: baton.dev/v1alpha1, kind: WorkerService, name: payment, namespace: default, uid: %s}
        reason: DeadLettered
        message: a command went to q.dlx.payment.pay
        type: Warning
        source: {component: baton-operator}
        """.formatted(uid), "apply", "-f", "-");
    assertThat(event.exitCode()).as(event.all()).isZero();

    String described = kubectl.ok("describe", "workerservice", "payment");
    assertThat(described).contains("Name:         payment", "Kind:         WorkerService",
        "DeadLettered", "a command went to q.dlx.payment.pay")
        .containsPattern("Retry Policy: +quick").containsPattern("Deletion Policy: +Retain");
    assertThat(kubectl.ok("describe", "workflow", "order-fulfilment")).contains("reserve-stock", "Succeeded:  7", "Events:");
  }

  @Test
  @Order(6)
  void badResourcesAreRejectedWithTheFieldAndNothingIsStored() {
    Kubectl.Result r = kubectl.runWithInput("""
        apiVersion: baton.dev/v1alpha1
        kind: RetryPolicy
        metadata: {name: sloppy}
        spec:
          maxAttempts: 3
          delays: ["30 s"]
        ---
        apiVersion: baton.dev/v1alpha1
        kind: WorkerService
        metadata: {name: dotted}
        spec:
          service: pay.ment
        """, "apply", "-f", "-");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err()).contains("RetryPolicy.baton.dev \"sloppy\" is invalid", "spec.delays[0]",
        "Invalid value: \"30 s\"");
    assertThat(r.err()).contains("WorkerService.baton.dev \"dotted\" is invalid", "spec.service",
        "Invalid value: \"pay.ment\"");
    assertThat(kubectl.run("get", "retrypolicy", "sloppy").err())
        .contains("retrypolicies.baton.dev \"sloppy\" not found");
    assertThat(kubectl.run("get", "workerservice", "dotted").exitCode()).isNotZero();

    Kubectl.Result unknownField = kubectl.runWithInput("""
        apiVersion: baton.dev/v1alpha1
        kind: RetryPolicy
        metadata: {name: colourful}
        spec: {maxAttempts: 2, delays: ["1s"], colour: blue}
        """, "apply", "-f", "-");
    assertThat(unknownField.err()).contains("unknown field \"spec.colour\"");
  }

  @Test
  @Order(6)
  void aJsonPatchWithAnUnknownFieldIsStoredPrunedWithAWarningAndDefaultsAreStored() {
    Kubectl.Result patched = kubectl.run("patch", "workerservice", "payment", "--type=json",
        "-p", "[{\"op\":\"add\",\"path\":\"/spec/unknownField\",\"value\":1}]");
    assertThat(patched.exitCode()).as(patched.all()).isZero();
    assertThat(patched.err()).contains("Warning: unknown field \"spec.unknownField\"");

    String stored = kubectl.ok("get", "workerservice", "payment", "-o", "json");
    assertThat(stored).doesNotContain("unknownField").contains("\"name\": \"refund\"");
    // what the example leaves out, the schema's defaults fill in, as a cluster stores them
    assertThat(kubectl.ok("get", "workerservice", "payment", "-o",
        "jsonpath={.spec.deletionPolicy} {.spec.paused} {.spec.queue.prefetch}")).isEqualTo("Retain false 20");
  }

  @Test
  @Order(6)
  void listMapKeysCelRulesAndTransitionRulesAreEnforcedAsOnACluster() {
    Kubectl.Result duplicates = kubectl.runWithInput("""
        apiVersion: baton.dev/v1alpha1
        kind: Workflow
        metadata: {name: twice}
        spec:
          entity: order
          steps:
            - {name: charge, service: payment, command: pay}
            - {name: charge, service: payment, command: refund}
        """, "apply", "-f", "-");
    assertThat(duplicates.exitCode()).isNotZero();
    assertThat(duplicates.err()).contains("Workflow \"twice\" is invalid",
        "spec.steps[1]: Duplicate value: map[string]interface {}{\"name\":\"charge\"}");
    assertThat(kubectl.run("get", "workflow", "twice").exitCode()).isNotZero();

    String longName = "a-service-name-that-is-longer-than-a-label-value-may-be-at-64chr";
    assertThat(longName).hasSize(64);
    Kubectl.Result tooLong = kubectl.runWithInput("""
        apiVersion: baton.dev/v1alpha1
        kind: WorkerService
        metadata: {name: %s}
        spec:
          commands: [{name: pay}]
        """.formatted(longName), "apply", "-f", "-");
    assertThat(tooLong.exitCode()).isNotZero();
    assertThat(tooLong.err()).contains("metadata.name: Too long: may not be more than 63 bytes");

    String clash = """
        apiVersion: baton.dev/v1alpha1
        kind: WorkerService
        metadata: {name: clash}
        spec:
          commands: [{name: notify}]
          subscriptions: [{name: notify, service: payment, pattern: "*.pay.failed"}]
          %s
        """;
    // the structural schema first (as on a cluster, CEL runs only on what passes it), then the CEL rule
    Kubectl.Result schemaFirst = kubectl.runWithInput(
        clash.formatted("deployment: {image: example/clash:1, imagePullPolicy: Sometimes}"), "apply", "-f", "-");
    assertThat(schemaFirst.exitCode()).isNotZero();
    assertThat(schemaFirst.err()).contains("spec.deployment.imagePullPolicy: Unsupported value: \"Sometimes\"");
    Kubectl.Result celOnly = kubectl.runWithInput(clash.formatted(""), "apply", "-f", "-");
    assertThat(celOnly.err()).contains("\"clash\" is invalid",
        "spec: Invalid value: \"object\": a subscription cannot have the name of a command");

    // payment was applied as classic (order-saga): a real server refuses the change of type at admission
    Kubectl.Result quorum = kubectl.runWithInput("""
        apiVersion: baton.dev/v1alpha1
        kind: WorkerService
        metadata: {name: payment}
        spec:
          commands: [{name: pay, retryPolicy: quick}, {name: refund, retryPolicy: quick}]
          queue: {type: quorum, prefetch: 20}
        """, "apply", "-f", "-");
    assertThat(quorum.exitCode()).isNotZero();
    assertThat(quorum.err()).contains("spec.queue.type: Invalid value: \"string\": the queue type cannot change");
    assertThat(kubectl.ok("get", "bws", "payment", "-o", "jsonpath={.spec.queue.type}")).isEqualTo("classic");
  }

  @Test
  @Order(7)
  void coreKindsApplyAndPrintLikeACluster() {
    Kubectl.Result r = kubectl.runWithInput("""
        apiVersion: v1
        kind: Secret
        metadata: {name: payment-credentials}
        stringData: {username: u, password: p, uri: amqp://u:p@localhost}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: payment, labels: {app: payment}}
        spec:
          replicas: 2
          selector: {matchLabels: {app: payment}}
          template:
            metadata: {labels: {app: payment}}
            spec:
              containers:
              - {name: worker, image: example/payment:1.0, env: [{name: A, value: "1"}]}
        """, "apply", "-f", "-");
    assertThat(r.exitCode()).as(r.all()).isZero();
    assertThat(header(kubectl.ok("get", "secrets"))).containsExactly("NAME", "TYPE", "DATA", "AGE");
    assertThat(header(kubectl.ok("get", "deployments")))
        .containsExactly("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE");
    assertThat(kubectl.ok("get", "deploy", "payment", "--no-headers")).startsWith("payment").contains("0/2");
    assertThat(kubectl.ok("get", "namespaces")).contains("default", "Active");

    // a strategic merge patch on a list with a merge key keeps the other fields of the element
    kubectl.ok("set", "image", "deployment/payment", "worker=example/payment:1.1");
    assertThat(kubectl.ok("get", "deploy", "payment", "-o", "jsonpath={.spec.template.spec.containers[0]}"))
        .contains("example/payment:1.1", "\"env\"");
    assertThat(kubectl.ok("describe", "deployment", "payment")).contains("example/payment:1.1");
  }

  @Test
  @Order(8)
  void watchesStreamChangesToGetWatchAndWait() throws Exception {
    Process watch = kubectl.start("get", "workerservices", "--watch");
    Process wait = kubectl.start("wait", "--for=condition=Ready", "workerservice/shipping", "--timeout=30s");
    // Both must be listening before the change, or they would only see it in their initial read.
    int before = api.openHttpWatches();
    await().atMost(Duration.ofSeconds(20)).until(() -> api.openHttpWatches() >= before + 2);
    kubectl.ok("patch", "bws", "shipping", "--subresource=status", "--type=merge", "-p",
        "{\"status\":{\"service\":\"shipping\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    assertThat(wait.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(new String(wait.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).contains("condition met");
    StringBuilder streamed = new StringBuilder();
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      var out = watch.getInputStream();
      streamed.append(new String(out.readNBytes(out.available()), StandardCharsets.UTF_8));
      assertThat(streamed.toString()).containsPattern("shipping\\s+shipping\\s+True");
    });
    watch.destroy();
  }

  @Test
  @Order(9)
  void deleteWaitsForFinalizersAndServerSideApplySaysItIsNotSupported() throws Exception {
    kubectl.ok("patch", "bws", "sms", "--type=merge", "-p", "{\"metadata\":{\"finalizers\":[\"baton.dev/cleanup\"]}}");
    Process delete = kubectl.start("delete", "workerservice", "sms");
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
        assertThat(kubectl.ok("get", "bws", "sms", "-o", "jsonpath={.metadata.deletionTimestamp}")).isNotBlank());
    assertThat(delete.waitFor(1, TimeUnit.SECONDS)).as("kubectl delete waits for the finalizer").isFalse();
    kubectl.ok("patch", "bws", "sms", "--type=json", "-p", "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]");
    assertThat(delete.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(delete.exitValue()).isZero();
    assertThat(kubectl.run("get", "bws", "sms").err()).contains("not found");

    assertThat(kubectl.run("apply", "--server-side", "-f", EXAMPLES.resolve("00-retrypolicy.yaml").toString()).err())
        .contains("server-side apply is not supported by the Baton dev API");

    String deleted = kubectl.ok("delete", "--ignore-not-found", "-f", EXAMPLES.toString());
    assertThat(deleted).contains("workflow.baton.dev \"order-fulfilment\" deleted");
    assertThat(kubectl.run("get", "workflows,workerservices,retrypolicies").all()).contains("No resources found");
  }

  private static List<String> header(String table) {
    return List.of(table.lines().findFirst().orElse("").trim().split("\\s+"));
  }

  static Path repoRoot() {
    String root = System.getProperty("baton.repo.root");
    return root != null ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
  }
}
