package dev.baton.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.client.TolerantSerialization;
import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.RetryPolicySpec;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.OperatorSettings;
import dev.baton.sandbox.LocalServices;
import dev.baton.sandbox.MockKubernetes;
import dev.baton.sandbox.Sandbox;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator at scale: many WorkerServices and Workflows applied at once to the real operator
 * ({@link BatonOperator#start}) against the fabric8 mock API server (CRUD mode) and the real broker. Kubernetes API
 * calls are read from the mock server's request log (the benchmark's own polling is told apart by its user agent);
 * broker calls are counted by a proxy in front of the management API, which the operator reaches through its
 * ordinary management URL setting.
 */
final class OperatorScale {

  private static final Logger LOG = LoggerFactory.getLogger(OperatorScale.class);
  private static final String NS = "default";
  private static final String BENCH_AGENT = "baton-bench-poller";

  record Result(int services, int workflows, double secondsToReady, long kubeCallsToReady,
      long brokerCallsToReady, Map<String, Long> kubeByKind, Map<String, Long> brokerByKind, int resyncSeconds,
      double resyncs, long kubeCallsIdle, long brokerCallsIdle, Map<String, Long> idleKubeByKind,
      Map<String, Long> idleBrokerByKind, double heapAfterGcMb, double maxHeapMb) {

    double kubePerResync() {
      return resyncs > 0 ? kubeCallsIdle / resyncs : Double.NaN;
    }

    double brokerPerResync() {
      return resyncs > 0 ? brokerCallsIdle / resyncs : Double.NaN;
    }

    String markdown() {
      int resources = services + workflows + 1;
      StringBuilder md = new StringBuilder("### Operator at scale\n\n");
      md.append(String.format(Locale.ROOT, "%d WorkerServices (2 commands each, one with a 2-tier retry policy) and "
          + "%d Workflows (2 steps, one compensation) applied at once, plus one RetryPolicy; mock API server in "
          + "CRUD mode, real broker.%n%n", services, workflows));
      md.append("| | time | Kubernetes API calls | broker (management HTTP) calls |\n|---|---|---|---|\n");
      md.append(String.format(Locale.ROOT, "| apply → all Ready | %.1f s | %,d (%.1f per resource) | %,d (%.1f per "
          + "resource) |%n", secondsToReady, kubeCallsToReady, (double) kubeCallsToReady / resources,
          brokerCallsToReady, (double) brokerCallsToReady / resources));
      md.append(String.format(Locale.ROOT, "| one resync, nothing changed (resync every %d s, %.1f resyncs observed) "
          + "| | %,.0f (%.2f per resource) | %,.0f (%.2f per resource) |%n", resyncSeconds, resyncs, kubePerResync(),
          kubePerResync() / resources, brokerPerResync(), brokerPerResync() / resources));
      md.append(String.format(Locale.ROOT, "%nHeap in use after a full GC once all were Ready: %.0f MiB (the JVM's "
          + "maximum: %.0f MiB); the JVM also holds the mock API server with every object.%n", heapAfterGcMb,
          maxHeapMb));
      md.append("\nCalls by kind, apply → Ready: Kubernetes ").append(kubeByKind).append("; broker ")
          .append(brokerByKind).append(".\n\nCalls by kind while idle: Kubernetes ").append(idleKubeByKind)
          .append("; broker ").append(idleBrokerByKind).append(".\n");
      return md.toString();
    }

    ObjectNode json() {
      ObjectNode o = Json.PRETTY.createObjectNode();
      o.put("workerServices", services);
      o.put("workflows", workflows);
      Report.num(o, "secondsToReady", secondsToReady);
      o.put("kubeCallsToReady", kubeCallsToReady);
      o.put("brokerCallsToReady", brokerCallsToReady);
      o.set("kubeCallsToReadyByKind", Json.PRETTY.valueToTree(kubeByKind));
      o.set("brokerCallsToReadyByKind", Json.PRETTY.valueToTree(brokerByKind));
      o.put("resyncSeconds", resyncSeconds);
      Report.num(o, "resyncsObserved", resyncs);
      Report.num(o, "kubeCallsPerIdleResync", kubePerResync());
      Report.num(o, "brokerCallsPerIdleResync", brokerPerResync());
      o.set("idleKubeCallsByKind", Json.PRETTY.valueToTree(idleKubeByKind));
      o.set("idleBrokerCallsByKind", Json.PRETTY.valueToTree(idleBrokerByKind));
      Report.num(o, "heapAfterGcMb", heapAfterGcMb);
      Report.num(o, "maxHeapMb", maxHeapMb);
      return o;
    }
  }

  private OperatorScale() {}

  static Result run(int services, int workflows, int resyncSeconds) throws Exception {
    try (Sandbox stack = Sandbox.builder("bench-operator").kubernetes(MockKubernetes.ALL_CRDS)
        .brokerUsers("baton-b").start()) {
      KubernetesMockServer server = stack.kubernetes().server();
      KubernetesClient client = stack.client();
      KubernetesClient poller = stack.own(TolerantSerialization.clientBuilder().withConfig(
          new ConfigBuilder(client.getConfiguration()).withUserAgent(BENCH_AGENT).build()).build());
      CountingHttpProxy proxy = stack.own(new CountingHttpProxy(
          LocalServices.RABBITMQ_MANAGEMENT_URL.replaceFirst("/api/?$", "")));
      OperatorSettings settings = OperatorSettings.localDefaults().toBuilder()
          .managementUrl(proxy.apiUrl())
          .admin(LocalServices.RABBITMQ_USERNAME, LocalServices.RABBITMQ_PASSWORD)
          .amqp(LocalServices.RABBITMQ_HOST, LocalServices.RABBITMQ_PORT)
          .vhost(stack.vhost().name()).userPrefix(stack.userPrefix()).resync(Duration.ofSeconds(resyncSeconds))
          .serverSideApply(false).build();
      stack.own(BatonOperator.start(client, settings));
      Thread.sleep(1_000);
      takeKube(server);
      proxy.takeCounts();

      // Ready is followed by a watch (each status change comes once), not by listing every resource twice a second:
      // at thousands of resources those lists were most of the mock server's work, under its one lock.
      ReadyWatch<WorkerService> wsReady = stack.own(new ReadyWatch<>(poller.resources(WorkerService.class)
          .inNamespace(NS), w -> w.getStatus() != null && w.getStatus().isReady()));
      ReadyWatch<Workflow> wfReady = stack.own(new ReadyWatch<>(poller.resources(Workflow.class).inNamespace(NS),
          w -> w.getStatus() != null && w.getStatus().isReady()));
      long t0 = System.nanoTime();
      RetryPolicy policy = new RetryPolicy();
      policy.setMetadata(new ObjectMetaBuilder().withName("standard").withNamespace(NS).build());
      RetryPolicySpec ps = new RetryPolicySpec();
      ps.setMaxAttempts(3);
      ps.setDelays(List.of("1s", "5s"));
      policy.setSpec(ps);
      poller.resource(policy).create();
      for (int i = 0; i < services; i++) {
        WorkerService ws = new WorkerService();
        ws.setMetadata(new ObjectMetaBuilder().withName(service(i)).withNamespace(NS).build());
        WorkerServiceSpec spec = new WorkerServiceSpec();
        spec.setCommands(new ArrayList<>(List.of(new CommandSpec("do", "standard"), new CommandSpec("undo", null))));
        ws.setSpec(spec);
        poller.resource(ws).create();
      }
      for (int i = 0; i < workflows; i++) {
        Workflow wf = new Workflow();
        wf.setMetadata(new ObjectMetaBuilder().withName("wf-" + i).withNamespace(NS).build());
        WorkflowSpec spec = new WorkflowSpec();
        spec.setEntity("e" + i);
        StepSpec a = new StepSpec("a", service(2 * i % services), "do");
        a.setCompensate("undo");
        StepSpec b = new StepSpec("b", service((2 * i + 1) % services), "do");
        spec.setSteps(new ArrayList<>(List.of(a, b)));
        wf.setSpec(spec);
        poller.resource(wf).create();
      }
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
      while (true) {
        long readyServices = wsReady.ready();
        long readyWorkflows = wfReady.ready();
        if (readyServices == services && readyWorkflows == workflows) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("not all Ready after 15 minutes: " + readyServices + "/" + services
              + " WorkerServices, " + readyWorkflows + "/" + workflows + " Workflows");
        }
        Thread.sleep(200);
      }
      double secondsToReady = (System.nanoTime() - t0) / 1e9;
      System.gc();
      double heapAfterGcMb = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1048576.0;
      double maxHeapMb = Runtime.getRuntime().maxMemory() / 1048576.0;
      Map<String, Long> kubeToReady = takeKube(server);
      Map<String, Long> brokerToReady = proxy.takeCounts();
      LOG.info("operator: {} WorkerServices + {} Workflows Ready in {} s; {} API calls, {} broker calls", services,
          workflows, BatonRun.fmt(secondsToReady), CountingHttpProxy.total(kubeToReady),
          CountingHttpProxy.total(brokerToReady));

      // Nothing changes from here on: what the operator does now is its resync.
      int window = 2 * resyncSeconds + Math.max(2, resyncSeconds / 5);
      Thread.sleep(window * 1000L);
      Map<String, Long> kubeIdle = takeKube(server);
      Map<String, Long> brokerIdle = proxy.takeCounts();
      double resyncs = (double) window / resyncSeconds;
      LOG.info("operator idle for {} s: {} API calls, {} broker calls", window, CountingHttpProxy.total(kubeIdle),
          CountingHttpProxy.total(brokerIdle));
      return new Result(services, workflows, secondsToReady, CountingHttpProxy.total(kubeToReady),
          CountingHttpProxy.total(brokerToReady), kubeToReady, brokerToReady, resyncSeconds, resyncs,
          CountingHttpProxy.total(kubeIdle), CountingHttpProxy.total(brokerIdle), kubeIdle, brokerIdle, heapAfterGcMb,
          maxHeapMb);
    }
  }

  static String service(int i) {
    return "svc-" + i;
  }

  /** Drains the mock server's request log: the operator's requests by verb and resource (the poller's left out). */
  private static Map<String, Long> takeKube(KubernetesMockServer server) throws InterruptedException {
    Map<String, Long> counts = new TreeMap<>();
    RecordedRequest r;
    while ((r = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
      String agent = r.getHeader("User-Agent");
      if (agent != null && agent.contains(BENCH_AGENT)) {
        continue;
      }
      counts.merge(kind(r.getMethod(), r.getPath()), 1L, Long::sum);
    }
    return counts;
  }

  /** {@code PATCH /apis/baton.dev/v1alpha1/namespaces/default/workerservices/x/status} → {@code PATCH workerservices/status}. */
  static String kind(String method, String pathAndQuery) {
    String path = pathAndQuery == null ? "" : pathAndQuery;
    boolean watch = path.contains("watch=true");
    int q = path.indexOf('?');
    if (q >= 0) {
      path = path.substring(0, q);
    }
    String[] s = path.split("/");
    String kind;
    int ns = -1;
    for (int i = 0; i < s.length; i++) {
      if (s[i].equals("namespaces") && i + 2 < s.length) {
        ns = i;
        break;
      }
    }
    if (ns >= 0) {
      kind = s[ns + 2] + (s.length > ns + 4 ? "/" + s[ns + 4] : "");
    } else {
      kind = s.length > 0 ? s[s.length - 1] : path;
    }
    return (watch ? "WATCH" : method) + " " + kind;
  }
}
