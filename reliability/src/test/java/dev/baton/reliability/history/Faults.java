package dev.baton.reliability.history;

import com.rabbitmq.client.Channel;
import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.contract.Names;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.RoutesResponse;
import dev.baton.reliability.suite.Rig;
import dev.baton.reliability.suite.Wait;
import dev.baton.testing.TcpProxy;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * Injects a run's faults into its rig, each small and named. The workers reach the broker through {@code proxy} (so
 * that they can be cut off, and what the broker sends them held back); the runtime reaches it directly.
 */
final class Faults {

  private final Rig rig;
  private final TcpProxy proxy;
  private final Random rnd;
  private final Map<String, Long> observed = new ConcurrentHashMap<>();

  Faults(Rig rig, TcpProxy proxy, long seed) {
    this.rig = rig;
    this.proxy = proxy;
    this.rnd = new Random(seed ^ 0x5DEECE66DL);
  }

  /** What the faults were seen to do (copies published, starts refused while deleted), for the run's counts. */
  Map<String, Long> observed() {
    return Map.copyOf(observed);
  }

  void inject(Workload.PlannedFault f) throws Exception {
    switch (f.fault()) {
      case RUNTIME_KILLED -> runtimeKilledAndRestarted();
      case WORKER_KILLED -> payWorkerKilledAndRestarted();
      case RUNTIME_CONNECTIONS_CLOSED -> connectionsClosed("baton-runtime");
      case WORKER_CONNECTIONS_CLOSED -> connectionsClosed("baton-worker");
      case WORKERS_CUT_OFF -> workersCutOff(f.lasting());
      case DELIVERIES_HELD -> deliveriesHeld(f.lasting());
      case MEMORY_ALARM -> memoryAlarm(f.lasting());
      case WORKFLOW_EDITED -> workflowEdited();
      case DELIVERIES_DUPLICATED -> deliveriesDuplicated(f.lasting());
      case WORKFLOW_DELETED -> workflowDeletedAndCreatedAgain();
    }
  }

  /** SIGKILL mid-flight: its transactions in progress roll back, its unconfirmed publishes are sent again. */
  private void runtimeKilledAndRestarted() {
    rig.runtime().kill();
    rig.runtime().start();
  }

  /** The pay worker's JVM SIGKILLed mid-handler: uncommitted effects vanish, unacked commands come back. */
  private void payWorkerKilledAndRestarted() {
    rig.workers().process(Workload.KILLABLE_SERVICE).kill();
    rig.workers().startProcess(Workload.KILLABLE_SERVICE, 5);
  }

  /**
   * Connections force-closed through the management API; a worker's consumer closed mid-handler gets its unacked
   * commands redelivered while the first handler may still run: duplicated deliveries.
   */
  private void connectionsClosed(String prefix) {
    rig.rabbit.closeConnections(rig.vhost, name -> name.startsWith(prefix));
  }

  /** Every worker connection dropped, and new ones refused, for a while. */
  private void workersCutOff(Duration lasting) {
    forAWhile(lasting, proxy::cut, proxy::restore);
  }

  /**
   * What the broker sends the workers — deliveries, confirms — held back for a while (longer than some step
   * timeouts): commands reach their workers past their deadlines, results wait for their confirms.
   */
  private void deliveriesHeld(Duration lasting) {
    forAWhile(lasting, proxy::holdReplies, proxy::releaseReplies);
  }

  /** Every publisher blocked (runtime and workers), as when the broker passes its memory watermark. */
  private void memoryAlarm(Duration lasting) {
    forAWhile(lasting,
        () -> rig.rabbit.ctl(30, "eval", "rabbit_alarm:set_alarm({{resource_limit, memory, node()}, []})."),
        () -> rig.rabbit.ctl(30, "eval", "rabbit_alarm:clear_alarm({resource_limit, memory, node()})."));
  }

  /** A fault that lasts: begun, held for its planned length, ended whatever happens meanwhile. */
  private static void forAWhile(Duration lasting, Runnable begin, Runnable end) {
    begin.run();
    try {
      Wait.sleep(lasting.toMillis());
    } finally {
      end.run();
    }
  }

  /** A new revision of one Workflow, every task's timeout changed: instances started afterwards run on it. */
  private void workflowEdited() {
    List<String> names = List.copyOf(rig.workflows());
    String workflow = names.get(rnd.nextInt(names.size()));
    long timeout = Workload.timeout(rnd);
    rig.editWorkflow(workflow, spec -> dev.baton.workflow.WorkflowSpecs.allSteps(spec).stream()
        .filter(s -> s.getService() != null).forEach((StepSpec s) -> s.setTimeout(timeout + "ms")));
  }

  /**
   * For a while, every command and every result is delivered twice with the same message id, as after a publisher's
   * retry: a tap queue bound beside the workers' and the runtime's queues publishes a copy of each message it sees
   * (marked, so that it does not copy its own copies) to the same exchange and routing key.
   */
  private void deliveriesDuplicated(Duration lasting) throws IOException, TimeoutException {
    try (Channel tap = rig.amqp().createChannel()) {
      String queue = tap.queueDeclare().getQueue(); // server-named, exclusive: gone with the channel's connection
      for (String service : rig.services()) {
        tap.queueBind(queue, Names.commandExchange(service), "#");
        tap.queueBind(queue, Names.eventExchange(service), "#");
      }
      tap.basicConsume(queue, false, (tag, m) -> {
        Map<String, Object> headers = m.getProperties().getHeaders() == null ? new HashMap<>()
            : new HashMap<>(m.getProperties().getHeaders());
        if (headers.putIfAbsent(COPY, true) == null) {
          tap.basicPublish(m.getEnvelope().getExchange(), m.getEnvelope().getRoutingKey(),
              m.getProperties().builder().headers(headers).build(), m.getBody());
          observed.merge("copies delivered", 1L, Long::sum);
        }
        tap.basicAck(m.getEnvelope().getDeliveryTag(), false);
      }, tag -> { });
      Wait.sleep(lasting.toMillis());
      tap.queueDelete(queue);
    }
  }

  /** The header that marks a copy made by {@link #deliveriesDuplicated}. */
  private static final String COPY = "x-test-copy";

  /**
   * A Workflow deleted while its instances run, as {@code kubectl delete} would, with the operator's finalizer
   * played here: the runtime refuses new starts of it (409; the driver tries again) while its instances run to their
   * end on their stored revision; once the runtime's routes list none unfinished, the finalizer is removed, and the
   * Workflow is created again, as a GitOps tool would restore it.
   */
  private void workflowDeletedAndCreatedAgain() {
    List<String> names = List.copyOf(rig.workflows());
    String name = names.get(rnd.nextInt(names.size()));
    var workflows = rig.kubernetes().resources(Workflow.class).inNamespace(Rig.NS);
    Workflow before = workflows.withName(name).get();
    workflows.withName(name).edit(w -> {
      w.getMetadata().getFinalizers().add(FINALIZER);
      return w;
    });
    workflows.withName(name).delete();
    if (!Wait.until(Duration.ofSeconds(30), () -> refusedWhileDeleted(name))) {
      throw new IllegalStateException("the runtime did not refuse a start of the deleted Workflow " + name);
    }
    long t0 = System.nanoTime();
    boolean drained = Wait.until(HistoryRun.BOUND, () -> !unfinishedInstances(name));
    workflows.withName(name).edit(w -> {
      w.getMetadata().getFinalizers().remove(FINALIZER);
      return w;
    });
    observed.put("deleted Workflow drained in (s)", (System.nanoTime() - t0) / 1_000_000_000L);
    Wait.until(Duration.ofSeconds(30), () -> workflows.withName(name).get() == null);
    Workflow again = new Workflow();
    again.setMetadata(new ObjectMetaBuilder().withNamespace(Rig.NS).withName(name).build());
    again.setSpec(before.getSpec());
    workflows.resource(again).create();
    if (!drained) {
      throw new IllegalStateException("the instances of the deleted Workflow " + name + " did not end within "
          + HistoryRun.BOUND);
    }
  }

  /** The operator's finalizer on a Workflow, played by {@link #workflowDeletedAndCreatedAgain}. */
  private static final String FINALIZER = "workflows.baton.dev/finalizer";

  /**
   * Whether a start of the deleted Workflow is refused with 409. Until the runtime's watch has seen the deletion (a
   * moment; longer right after a runtime restart) a start is still accepted, as on a cluster: such a probe is an
   * instance like the others (a business key of its own, counted among the accepted starts so the checker holds it
   * to every rule, and the finalizer waits for it).
   */
  private boolean refusedWhileDeleted(String workflow) {
    String key = "probe-" + workflow + "-" + probes.incrementAndGet();
    HttpResponse<String> r = rig.api().post(ApiPaths.instances(Rig.NS, workflow),
        "{\"businessKey\":\"" + key + "\",\"input\":{}}");
    if (r.statusCode() / 100 == 2) {
      rig.api().recordAccepted(key);
      observed.merge("starts accepted before the runtime saw the deletion", 1L, Long::sum);
    }
    return r.statusCode() == 409;
  }

  private final java.util.concurrent.atomic.AtomicInteger probes = new java.util.concurrent.atomic.AtomicInteger();

  /** Whether the runtime's routes list unfinished instances of {@code workflow}, as the operator's finalizer asks. */
  private boolean unfinishedInstances(String workflow) {
    HttpResponse<String> r = rig.api().get(ApiPaths.ROUTES);
    if (r.statusCode() != 200) {
      return true;
    }
    try {
      return Json.MAPPER.readValue(r.body(), RoutesResponse.class).items().stream()
          .anyMatch(w -> w.namespace().equals(Rig.NS) && w.workflow().equals(workflow));
    } catch (IOException unreadable) {
      return true;
    }
  }
}
