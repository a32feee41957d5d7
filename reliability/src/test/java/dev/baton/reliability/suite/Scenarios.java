package dev.baton.reliability.suite;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.contract.topology.QueueType;
import dev.baton.httpapi.ApiPaths;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.infra.LaneErrorSocketFactory;
import dev.baton.reliability.infra.RabbitCluster;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The runtime-side fault scenarios. Each builds a {@link Rig}, keeps {@code n} instances of a three-step saga in
 * flight, injects its faults while they run, lets everything drain, and returns the {@link Verdict} computed from
 * the workers' ledger and the runtime's database.
 */
public final class Scenarios {

  static final Duration DRAIN = Duration.ofMinutes(6);
  static final Duration PROGRESS = Duration.ofSeconds(90);

  private final Infra infra;
  private final int n;

  /** @param n instances per scenario (hundreds in CI, thousands with -Pfaults) */
  public Scenarios(Infra infra, int n) {
    this.infra = infra;
    this.n = n;
  }

  /** Fault windows: the slowest recovery and the end of the last fault. */
  private static final class Clock {
    double recover = 0;
    long lastFaultEnd = System.nanoTime();
    final List<Long> inFlight = new ArrayList<>();

    /** Notes how many accepted instances had not completed when a fault began. */
    void faultBegins(Rig rig) {
      inFlight.add(Math.max(0, rig.api().accepted().size() - rig.tally().succeeded()));
    }

    void recovered(double seconds) {
      recover = Double.isNaN(seconds) || Double.isNaN(recover) ? Double.NaN : Math.max(recover, seconds);
    }

    void faultEnded() {
      lastFaultEnd = System.nanoTime();
    }

    double sinceLastFault() {
      return (System.nanoTime() - lastFaultEnd) / 1e9;
    }
  }

  /** A fault: injects it, and returns the {@link System#nanoTime()} at which it ended (recovery is timed from it). */
  @FunctionalInterface
  interface Fault {
    long inject() throws Exception;
  }

  /**
   * The instances of a scenario, started in waves: the first before any worker runs (those instances wait at their
   * first command), then one right before each fault, and a last one right after the last fault. Each wave is posted
   * as fast as four clients can, and a fault waits until half of its wave is in flight, so every fault finds many
   * instances at every stage, and there is always work to recover to.
   */
  private final class Flow {
    final Rig rig;
    final int waves;
    final int size;
    int started;
    final List<Future<?>> futures = new ArrayList<>();

    Flow(Rig rig, int faults, Runnable startWorkers) {
      this.rig = rig;
      this.waves = faults + 2;
      this.size = n / waves;
      rig.runtime().start();
      next();
      startWorkers.run();
    }

    /** Starts the next wave and waits until half of it is in flight (or all of it accepted). */
    void next() {
      int from = started;
      int to = start(futures.size() == waves - 1 ? n : from + size);
      Wait.until(Duration.ofMinutes(2), () -> rig.api().accepted().size() >= to
          || rig.api().accepted().size() - Math.max(0, rig.tally().succeeded()) >= (to - from) / 2);
    }

    /** Starts the last wave (the rest of the instances) without waiting. */
    void last() {
      start(n);
    }

    private int start(int to) {
      futures.add(rig.api().startInstances(started, to, 4, Duration.ofMinutes(8)));
      started = to;
      return to;
    }

    void awaitStarts() throws Exception {
      for (Future<?> f : futures) {
        f.get(10, TimeUnit.MINUTES);
      }
    }
  }

  /**
   * {@code times} faults, each right after a new wave of instances; recovery is timed from the fault's end until an
   * instance completes again.
   */
  private static void repeat(Flow flow, Clock clock, int times, Fault fault) throws Exception {
    for (int k = 1; k <= times; k++) {
      flow.next();
      long before = flow.rig.tally().succeeded();
      clock.faultBegins(flow.rig);
      long ended = fault.inject();
      clock.faultEnded();
      if (k == times) {
        flow.last();
      }
      double progress = flow.rig.tally().secondsUntilProgress(Math.max(before, flow.rig.tally().succeeded()), PROGRESS);
      clock.recovered(Double.isNaN(progress) ? Double.NaN : (System.nanoTime() - ended) / 1e9);
    }
  }

  private Verdict finish(Rig rig, String scenario, String faults, Flow flow, Clock clock, long expectedParked,
      String notes) throws Exception {
    flow.awaitStarts();
    boolean drained = Wait.until(DRAIN, () -> rig.tally().finished() >= rig.api().accepted().size()
        && rig.tally().leftovers() == 0);
    double drain = drained ? clock.sinceLastFault() : Double.NaN;
    Tally.Counts c = rig.tally().counts();
    String more = (notes.isEmpty() ? "" : notes + "; ") + (c.leftovers() == 0 ? "" : "leftovers: "
        + rig.tally().leftoversDetail() + "; ") + "in flight when faults began " + clock.inFlight
        + "; accepted " + c.accepted() + " of " + n + ", effects "
        + rig.ledger.effects() + ", re-dispatched executions " + c.redispatched();
    return new Verdict(scenario, c.accepted(), faults, c.lost() + Math.max(0, n - c.accepted()), c.appliedTwice(),
        c.stuck(),
        c.parked(), expectedParked, c.leftovers(), clock.recover, drain, more);
  }

  /** The runtime (its own JVM) killed with SIGKILL and restarted, {@code kills} times while instances are in flight. */
  public Verdict runtimeKilled(int kills) throws Exception {
    try (Rig rig = Rig.create(infra, "sigkill")) {
      Flow flow = new Flow(rig, kills, () -> rig.workers().startInProcess(10));
      Clock clock = new Clock();
      repeat(flow, clock, kills, () -> {
        rig.runtime().kill();
        Wait.sleep(500);
        long restart = System.nanoTime();
        rig.runtime().start();
        return restart;
      });
      return finish(rig, "runtime SIGKILL + restart", kills + " kills", flow, clock, 0,
          "recover = restart until the first instance completes again");
    }
  }

  /**
   * Broker connections force-closed through the management API: the runtime's publisher, then its consumer, then
   * every connection of the vhost (runtime and workers); then the broker application stopped and started.
   */
  public Verdict brokerConnectionsAndRestart(Duration appDown) throws Exception {
    try (Rig rig = Rig.create(infra, "broker")) {
      Flow flow = new Flow(rig, 4, () -> rig.workers().startInProcess(10));
      Clock clock = new Clock();
      List<String> closed = new ArrayList<>();
      // name prefix, and how many such connections there are (runtime publisher, runtime consumer, three workers)
      String[][] rounds = {{"publishers", "baton-runtime-publisher", "1"}, {"consumers", "baton-runtime-consumer", "1"},
          {"all", "baton-", "5"}};
      for (String[] r : rounds) {
        // the management API lists a (recovered) connection once it has its statistics: wait for all of them, then
        // start the wave (waiting after it could let the whole wave finish, leaving the fault nothing in flight)
        Wait.until(Duration.ofSeconds(15), () -> infra.rabbit.connections(rig.vhost, r[1]).size()
            >= Integer.parseInt(r[2]));
        flow.next();
        clock.faultBegins(rig);
        int count = infra.rabbit.closeConnections(rig.vhost, name -> name.startsWith(r[1]));
        closed.add(r[0] + ":" + count);
        clock.faultEnded();
        clock.recovered(rig.tally().secondsUntilProgress(rig.tally().succeeded(), PROGRESS));
      }
      flow.next();
      clock.faultBegins(rig);
      infra.rabbit.stopApp();
      Wait.sleep(appDown.toMillis());
      infra.rabbit.startApp();
      clock.faultEnded();
      flow.last();
      clock.recovered(rig.tally().secondsUntilProgress(rig.tally().succeeded(), PROGRESS));
      return finish(rig, "broker connections closed + stop_app/start_app", "closed " + String.join(",", closed)
          + "; app down " + appDown.toSeconds() + "s", flow, clock, 0, "");
    }
  }

  /** The private PostgreSQL (the runtime's database) stopped and started again while instances are in flight. */
  public Verdict postgresRestarted(int restarts, Duration down) throws Exception {
    try (Rig rig = Rig.create(infra, "pgrestart")) {
      Flow flow = new Flow(rig, restarts, () -> rig.workers().startInProcess(10));
      Clock clock = new Clock();
      repeat(flow, clock, restarts, () -> {
        infra.postgres.stopServer();
        Wait.sleep(down.toMillis());
        infra.postgres.startServer();
        return System.nanoTime();
      });
      boolean alive = rig.runtime().process().isAlive();
      return finish(rig, "PostgreSQL restarted", restarts + " restarts, " + down.toSeconds() + "s down", flow,
          clock, 0, alive ? "the runtime process stayed up throughout" : "THE RUNTIME PROCESS DIED");
    }
  }

  /** Each service's worker (its own JVM) killed with SIGKILL mid-message {@code kills} times and started again. */
  public Verdict workerKilled(int kills) throws Exception {
    try (Rig rig = Rig.create(infra, "workerkill")) {
      Flow flow = new Flow(rig, kills, () -> Rig.SERVICES.keySet()
          .forEach(service -> rig.workers().startProcess(service, 5)));
      Clock clock = new Clock();
      repeat(flow, clock, kills, () -> {
        for (String service : Rig.SERVICES.keySet()) {
          rig.workers().process(service).kill();
        }
        Wait.sleep(300);
        for (String service : Rig.SERVICES.keySet()) {
          rig.workers().startProcess(service, 5);
        }
        return System.nanoTime();
      });
      return finish(rig, "worker SIGKILL mid-message", kills + " x 3 workers killed", flow, clock, 0,
          "handlers hold their transaction 5 ms, so kills land mid-message");
    }
  }

  /**
   * Two runtimes against one database and broker — the first {@code dev.baton.runtime.app.Main}, the other started as a
   * user would, {@code baton runtime --http-port N} — with clients spread over both; one of them is SIGKILLed while
   * instances are in flight (alternately the replica and the first) and the survivor carries on alone; before the
   * next kill the dead one comes back. Recovery is timed from the kill.
   */
  public Verdict twoRuntimesOneKilled(int kills) throws Exception {
    try (Rig rig = Rig.create(infra, "replicas")) {
      Flow flow = new Flow(rig, kills, () -> {
        rig.runtime().startReplica();
        rig.workers().startInProcess(10);
      });
      Clock clock = new Clock();
      int[] round = {0};
      repeat(flow, clock, kills, () -> {
        boolean replica = round[0]++ % 2 == 0;
        if (!replica) {
          rig.runtime().startReplica(); // the one killed last time comes back first
          rig.runtime().kill();
        } else {
          if (round[0] > 1) {
            rig.runtime().start();
          }
          rig.runtime().replicas().get(rig.runtime().replicas().size() - 1).process().kill();
        }
        return System.nanoTime();
      });
      return finish(rig, "two runtimes, one SIGKILLed", kills + " kills (baton runtime and Main alternately)", flow,
          clock, 0, "recover = kill until the survivor completes an instance");
    }
  }

  /**
   * The broker raises a memory alarm for {@code duration} ({@code rabbit_alarm:set_alarm}, as when it passes its
   * memory watermark): every publisher — runtime and workers — is blocked; consuming and acks go on. Then cleared.
   */
  public Verdict memoryAlarm(Duration duration) throws Exception {
    try (Rig rig = Rig.create(infra, "memalarm")) {
      Flow flow = new Flow(rig, 1, () -> rig.workers().startInProcess(10));
      Clock clock = new Clock();
      boolean[] raised = {false};
      long[] duringAlarm = {0};
      repeat(flow, clock, 1, () -> {
        rig.rabbit.ctl(30, "eval", "rabbit_alarm:set_alarm({{resource_limit, memory, node()}, []}).");
        try {
          raised[0] = rig.rabbit.ctl(30, "eval", "rabbit_alarm:get_alarms().").contains("memory");
          Wait.sleep(2_000); // publishes already on the wire finish; from here on publishers are blocked
          long before = rig.tally().succeeded();
          Wait.sleep(Math.max(0, duration.toMillis() - 2_000));
          duringAlarm[0] = rig.tally().succeeded() - before;
        } finally {
          rig.rabbit.ctl(30, "eval", "rabbit_alarm:clear_alarm({resource_limit, memory, node()}).");
        }
        return System.nanoTime();
      });
      Verdict v = finish(rig, "broker memory alarm", "alarm " + duration.toSeconds() + "s", flow, clock, 0,
          "recover = alarm cleared until an instance completes; alarm raised " + raised[0]
              + ", instances completed while publishers were blocked " + duringAlarm[0]);
      return raised[0] ? v : v.withNotes("THE ALARM WAS NOT RAISED").failed();
    }
  }

  /**
   * Handlers that hang: once armed, the first delivery of the charge command of one instance in 20 hangs — half of
   * them in an interruptible wait, half ignoring the interrupt for 3 s and then trying to commit their effect. The
   * workers' handler timeout is 1 s: the SDK gives up on the handler, the command climbs its staircase and the next
   * delivery succeeds; a late commit of the abandoned handler must not apply the effect twice (the idempotency
   * record is in the same transaction).
   */
  public Verdict hangingHandlers() throws Exception {
    try (Rig rig = Rig.create(infra, "hang")) {
      java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicLong hung = new java.util.concurrent.atomic.AtomicLong();
      rig.workers().configure(b -> b.handlerTimeout(Duration.ofSeconds(1)));
      rig.workers().handlerFault(cmd -> {
        int h = Math.floorMod(cmd.instanceId().hashCode(), 20);
        if (!armed.get() || cmd.retries() > 0 || !"charge".equals(cmd.step()) || h > 1) {
          return Map.of();
        }
        hung.incrementAndGet();
        if (h == 0) {
          Thread.sleep(60_000); // interrupted by the SDK's timeout
        } else {
          long until = System.nanoTime() + 3_000_000_000L;
          while (System.nanoTime() < until) { // deaf to the interrupt
            Thread.interrupted();
            java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
          }
        }
        return Map.of();
      });
      Flow flow = new Flow(rig, 1, () -> rig.workers().startInProcess(10));
      Clock clock = new Clock();
      repeat(flow, clock, 1, () -> {
        armed.set(true);
        return System.nanoTime();
      });
      Verdict v = finish(rig, "handlers that hang", "1 in 20 charge commands hangs once (handler timeout 1s)", flow,
          clock, 0, "");
      armed.set(false);
      return v.withNotes("hung handlers " + hung.get() + " (half ignore the interrupt for 3s and commit late)");
    }
  }

  /**
   * A three-node RabbitMQ cluster of private nodes, quorum queues everywhere (commands, tiers, the orchestrator's),
   * the runtime and the workers given all three addresses (connected to the first); the first node is SIGKILLed
   * while instances are in flight, the others carry on (the queues keep their majority, connections fail over), and
   * it is restarted once the flow has recovered, rejoining the cluster. Recovery is timed from the kill.
   */
  public Verdict clusterNodeKilled() throws Exception {
    Path dir = infra.dir.resolve("cluster-" + UUID.randomUUID().toString().substring(0, 6));
    try (RabbitCluster cluster = RabbitCluster.start(dir, infra.ca, 3);
        Rig rig = Rig.create(infra, "cluster", new Rig.Options(cluster.node(2), cluster.amqpPorts(),
            QueueType.QUORUM, Rig.SERVICES))) {
      Flow flow = new Flow(rig, 1, () -> rig.workers().startInProcess(10));
      Clock clock = new Clock();
      repeat(flow, clock, 1, () -> {
        cluster.node(0).kill();
        return System.nanoTime();
      });
      long restart = System.nanoTime();
      cluster.node(0).restart();
      boolean rejoined = Wait.until(Duration.ofSeconds(60), () -> cluster.running(cluster.node(2)) == 3);
      Verdict v = finish(rig, "one node of three SIGKILLed (quorum)", "node 1 of 3 killed, restarted after "
          + Math.round((restart - clock.lastFaultEnd) / 1e9) + "s", flow, clock, 0,
          "runtime and workers connected to node 1, failing over to the others; recover = kill until an instance "
          + "completes");
      return rejoined ? v : new Verdict(v.scenario(), v.instances(), v.faults(), v.lost(), v.appliedTwice(),
          v.stuck(), v.parked(), v.expectedParked(), v.leftovers() + 1, v.recoverSeconds(), v.drainSeconds(),
          v.notes() + "; THE NODE DID NOT REJOIN THE CLUSTER");
    }
  }

  /**
   * The Workflow edited three times while instances run, under the operator (which binds the orchestrator queue from
   * the spec and from the runtime's routes of older revisions): the charge step's action renamed ({@code debit}), the
   * ship step moved to another service ({@code ship2}), the entity changed ({@code parcel}). Each edit leaves
   * instances of the older revisions in flight, whose results keep their old keys; every one of them must finish.
   */
  public Verdict workflowEdited() throws Exception {
    try (Rig rig = Rig.create(infra, "edited", Rig.Options.of(infra).withServices(Map.of("ship2", List.of("ship"))))) {
      RigOperator[] operator = new RigOperator[1];
      Flow flow = new Flow(rig, 3, () -> {
        operator[0] = RigOperator.start(rig);
        rig.workers().startInProcess(10);
      });
      try {
        Clock clock = new Clock();
        List<java.util.function.Consumer<dev.baton.api.v1alpha1.WorkflowSpec>> edits = List.of(
            spec -> spec.getSteps().get(1).setAction("debit"),
            spec -> spec.getSteps().get(2).setService("ship2"),
            spec -> spec.setEntity("parcel"));
        int[] k = {0};
        repeat(flow, clock, edits.size(), () -> {
          rig.editWorkflow(Rig.WORKFLOW, edits.get(k[0]++));
          // The edit is made once the runtime serves its revision: the next wave starts at once, and started before
          // the runtime's watch saw the last edit it all ran on the revision before (3 revisions counted, not 4).
          int revisions = k[0] + 1;
          Wait.until(Duration.ofSeconds(30),
              () -> rig.tally().runtimeCount("SELECT count(*) FROM workflow_definition") >= revisions);
          return System.nanoTime();
        });
        long revisions = rig.tally().runtimeCount("SELECT count(DISTINCT revision) FROM workflow_instance");
        boolean newestBound = Wait.until(Duration.ofSeconds(30), () -> operator[0].orchestratorBindings()
            .contains("ship2.event.topic.ex parcel.ship.success"));
        Verdict v = finish(rig, "Workflow edited mid-run", "3 edits: action renamed, step moved, entity changed",
            flow, clock, 0, "instances on " + revisions + " revisions; recover = edit until an instance completes");
        // once no instance of the older revisions runs, their keys are unbound (the runtime lists none)
        boolean oldUnbound = Wait.until(Duration.ofSeconds(30), () -> !operator[0].orchestratorBindings()
            .contains("pay.event.topic.ex order.charge.success"));
        v = v.withNotes("older revisions' keys unbound after the drain " + oldUnbound);
        return revisions >= 4 && newestBound && oldUnbound ? v : v.withNotes("EXPECTED 4 REVISIONS, THE NEWEST "
            + "BOUND AND THE OLDEST UNBOUND").failed();
      } finally {
        if (operator[0] != null) {
          operator[0].close();
        }
      }
    }
  }

  /**
   * {@code big} instances among the others whose first step's output is too large for the workers' limit (256 KiB
   * here; {@code maxResultBytes}): the SDK parks the command with {@code PayloadTooLarge} and answers a small error
   * event, the step fails, its unknown outcome is compensated and the instance ends COMPENSATED; every other instance
   * succeeds. The parked commands are the expected parked messages.
   */
  public Verdict oversizedOutputs(int big) throws Exception {
    try (Rig rig = Rig.create(infra, "oversized")) {
      rig.workers().configure(b -> b.maxResultBytes(256 * 1024));
      String blob = "x".repeat(300 * 1024);
      // the reserve command only, not its compensation (release, of the same step)
      rig.workers().handlerFault(cmd -> "reserve".equals(cmd.action()) && cmd.input().path("big").asBoolean()
          ? Map.of("blob", blob) : Map.of());
      markBig(rig, big);
      Flow flow = new Flow(rig, 1, () -> rig.workers().startInProcess(10));
      Clock clock = new Clock();
      repeat(flow, clock, 1, () -> System.nanoTime());
      flow.awaitStarts();
      Verdict v = finish(rig, "oversized outputs", rig.tally().mayFail().size() + " outputs over maxResultBytes", flow,
          clock, rig.tally().mayFail().size(), "");
      long compensated = rig.tally().runtimeCount(
          "SELECT count(*) FROM workflow_instance WHERE status = 'COMPENSATED'");
      v = v.withNotes("those instances COMPENSATED: " + compensated);
      return compensated == rig.tally().mayFail().size() ? v
          : v.withNotes("EXPECTED EVERY OVERSIZED ONE COMPENSATED").failed();
    }
  }

  /**
   * Marks one instance in {@code n / big} as big (a {@link Tally#mayFail} key and {@code "big": true} in its input);
   * the others get the usual input.
   */
  private void markBig(Rig rig, int big) {
    int every = Math.max(2, n / Math.max(1, big));
    rig.api().startBody(key -> {
      boolean isBig = Integer.parseInt(key.substring(key.indexOf('-') + 1)) % every == 1;
      if (isBig) {
        rig.tally().mayFail(key);
      }
      return "{\"businessKey\":\"" + key + "\",\"input\":{\"amount\":42,\"big\":" + isBig + "}}";
    });
  }

  /**
   * {@code big} starts among the others whose input (80 KiB) makes their first command larger than the runtime's
   * {@code BATON_MAX_COMMAND_BYTES} (64 KiB here): each is refused with 413 naming the limit and nothing is created
   * (docs/design.md#runtime-semantics, refused commands fail fast), while every other instance succeeds. Nothing is
   * parked: the broker never sees those commands.
   */
  public Verdict oversizedCommands(int big) throws Exception {
    int limit = 64 * 1024;
    try (Rig rig = Rig.create(infra, "bigcommand")) {
      rig.runtime().addEnv("BATON_MAX_COMMAND_BYTES", String.valueOf(limit));
      Flow flow = new Flow(rig, 1, () -> rig.workers().startInProcess(10));
      String blob = "x".repeat(80 * 1024);
      int refused = 0;
      for (int i = 0; i < big; i++) {
        HttpResponse<String> r = rig.api().post(ApiPaths.instances(Rig.NS, Rig.WORKFLOW),
            "{\"businessKey\":\"big-" + i + "\",\"input\":{\"amount\":42,\"blob\":\"" + blob + "\"}}");
        refused += r.statusCode() == 413 && r.body().contains(String.valueOf(limit)) ? 1 : 0;
      }
      Clock clock = new Clock();
      repeat(flow, clock, 1, () -> System.nanoTime());
      flow.awaitStarts();
      Verdict v = finish(rig, "oversized commands", big + " starts over BATON_MAX_COMMAND_BYTES", flow, clock, 0, "");
      long created = rig.tally().runtimeCount(
          "SELECT count(*) FROM workflow_instance WHERE business_key LIKE 'big-%'");
      v = v.withNotes("starts refused with 413 naming the limit: " + refused + ", created: " + created);
      return refused == big && created == 0 ? v
          : v.withNotes("EXPECTED EVERY OVERSIZED START REFUSED WITH 413, NONE CREATED").failed();
    }
  }

  /**
   * A definition that no longer loads: instances run on revision 1, the Workflow is edited (revision 2), the runtime
   * is SIGKILLed, revision 1's stored spec is made unreadable (as a spec of an older version might be), and the
   * runtime restarts. The instances of revision 1 that had not finished must end FAILED rather than hang; those of
   * revision 2 succeed, and so does everything else.
   */
  public Verdict definitionNoLongerLoads() throws Exception {
    try (Rig rig = Rig.create(infra, "baddef")) {
      Flow flow = new Flow(rig, 1, () -> rig.workers().startInProcess(10));
      Clock clock = new Clock();
      repeat(flow, clock, 1, () -> {
        rig.editWorkflow(Rig.WORKFLOW, spec -> spec.getSteps().get(2).setTimeout("9m"));
        Wait.until(Duration.ofSeconds(20),
            () -> rig.tally().runtimeCount("SELECT count(*) FROM workflow_definition") >= 2);
        rig.runtime().kill();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(
            infra.postgres.jdbcUrl(rig.runtimeDb), "postgres", ""); java.sql.Statement st = c.createStatement()) {
          try (java.sql.ResultSet rs = st.executeQuery("SELECT business_key FROM workflow_instance WHERE revision = 1"
              + " AND finished_at IS NULL")) {
            while (rs.next()) {
              rig.tally().mayFail(rs.getString(1));
            }
          }
          st.executeUpdate("UPDATE workflow_definition SET spec = '{\"steps\": \"no longer a list\"}'::jsonb"
              + " WHERE revision = 1");
        }
        long restart = System.nanoTime();
        rig.runtime().start();
        return restart;
      });
      long failed = rig.tally().runtimeCount(
          "SELECT count(*) FROM workflow_instance WHERE revision = 1 AND status = 'FAILED'");
      Verdict v = finish(rig, "a definition that no longer loads", rig.tally().mayFail().size()
          + " unfinished instances on the broken revision", flow, clock, 0, "");
      return v.withNotes("of them FAILED: " + rig.tally().runtimeCount("SELECT count(*) FROM workflow_instance WHERE "
          + "revision = 1 AND status = 'FAILED'") + " (before the drain " + failed + ")");
    }
  }

  /**
   * A lane {@code Error}: the runtime's consumer lanes hit an {@link Error} inside their database call
   * ({@link LaneErrorSocketFactory}: the socket closed under the driver and an Error thrown), {@code errors} times
   * while instances are in flight. Each lane must report itself down on {@code /healthz}, drop its channel (the broker
   * redelivers its events) and start again; nothing is lost or applied twice.
   */
  public Verdict laneError(int errors) throws Exception {
    try (Rig rig = Rig.create(infra, "laneerror")) {
      Path arm = infra.dir.resolve("lane-error-" + UUID.randomUUID().toString().substring(0, 6));
      rig.runtime().databaseUrlQuery("?socketFactory=" + LaneErrorSocketFactory.class.getName());
      rig.runtime().addJvmArgument("-D" + LaneErrorSocketFactory.ARM + "=" + arm);
      Flow flow = new Flow(rig, errors, () -> rig.workers().startInProcess(10));
      Clock clock = new Clock();
      int[] struck = {0};
      int[] reportedDown = {0};
      // one Error per wave, while the wave's events flow through the lanes
      int[] extra = {0};
      repeat(flow, clock, errors, () -> {
        java.nio.file.Files.writeString(arm, "armed");
        // a small wave may be over already: start a few more instances until a lane takes the Error
        boolean taken = false;
        for (int t = 0; t < 20 && !taken; t++) {
          taken = Wait.until(Duration.ofSeconds(1), () -> !java.nio.file.Files.exists(arm));
          if (!taken) {
            for (int i = 0; i < 3; i++) {
              rig.api().startOne("key-extra-" + extra[0]++, java.time.Instant.now().plusSeconds(20));
            }
          }
        }
        if (taken) {
          struck[0]++;
          if (Wait.until(Duration.ofSeconds(3), () -> rig.api().get("/healthz").body().contains("lanesNotRunning"))) {
            reportedDown[0]++;
          }
        }
        java.nio.file.Files.deleteIfExists(arm);
        return System.nanoTime();
      });
      Verdict v = finish(rig, "a lane Error", errors + " Errors in lanes' database calls", flow, clock, 0,
          "Errors thrown " + struck[0] + ", lanes reported down on /healthz " + reportedDown[0]);
      return struck[0] == errors && reportedDown[0] == errors ? v : v.withNotes("EXPECTED EVERY ERROR THROWN AND "
          + "REPORTED").failed();
    }
  }

  /**
   * 1,000 poison and malformed messages mixed into the flow: half into the orchestrator queue (through a service's
   * event exchange), half into command queues (through the command exchanges); good instances keep flowing. Every
   * poison message must end in a parking queue with its reason.
   */
  public Verdict poison(int poison) throws Exception {
    try (Rig rig = Rig.create(infra, "poison")) {
      Flow flow = new Flow(rig, 1, () -> rig.workers().startInProcess(10));
      Clock clock = new Clock();
      flow.next();
      clock.faultBegins(rig);
      int sent = 0;
      try (Channel ch = rig.amqp().createChannel()) {
        ch.confirmSelect();
        for (int i = 0; i < poison; i++) {
          if (i % 2 == 0) {
            badEvent(ch, i / 2);
          } else {
            badCommand(ch, i / 2);
          }
          sent++;
          if (i % 100 == 99) {
            ch.waitForConfirmsOrDie(10_000);
          }
        }
        ch.waitForConfirmsOrDie(10_000);
      }
      clock.faultEnded();
      flow.last();
      Verdict v = finish(rig, "1,000 poison messages", sent + " poison (events + commands)", flow, clock, poison,
          "");
      Wait.until(Duration.ofSeconds(30), () -> rig.tally().parked() >= poison);
      long withoutReason = drainParkedWithoutReason(rig);
      return new Verdict(v.scenario(), v.instances(), v.faults(), v.lost(), v.appliedTwice(), v.stuck(), v.parked(),
          v.expectedParked(), v.leftovers() + withoutReason, -1, v.drainSeconds(),
          v.notes() + "; parked without a reason: " + withoutReason);
    }
  }

  /** Ten kinds of broken events; each must be parked (none is foreign, stale or a duplicate). */
  private static void badEvent(Channel ch, int i) throws Exception {
    Map<String, Object> h = new HashMap<>();
    h.put(Headers.WORKFLOW, Rig.WORKFLOW);
    h.put(Headers.INSTANCE, UUID.randomUUID().toString());
    h.put(Headers.STEP, "reserve");
    h.put(Headers.ACTION, "reserve");
    h.put(Headers.ATTEMPT, 1);
    h.put(Headers.ENTITY, "order");
    String messageId = UUID.randomUUID().toString();
    String contentType = Headers.CONTENT_TYPE_JSON;
    byte[] body = "{\"output\":{}}".getBytes(StandardCharsets.UTF_8);
    switch (i % 10) {
      case 0 -> body = "not json at all".getBytes(StandardCharsets.UTF_8);
      case 1 -> h.remove(Headers.WORKFLOW);
      case 2 -> messageId = null;
      case 3 -> contentType = "text/plain";
      case 4 -> h.put(Headers.INSTANCE, "not-a-uuid");
      case 5 -> h.remove(Headers.STEP);
      case 6 -> h.put(Headers.ATTEMPT, "first");
      case 7 -> body = "[1,2,3]".getBytes(StandardCharsets.UTF_8);
      case 8 -> { } // well-formed, but for an instance that does not exist
      default -> h.remove(Headers.ACTION);
    }
    ch.basicPublish(Names.eventExchange("stock"), "order.reserve.success", true, new AMQP.BasicProperties.Builder()
        .messageId(messageId).contentType(contentType).deliveryMode(2).headers(h).build(), body);
  }

  /**
   * Five kinds of broken commands; each must be parked by the worker SDK. They claim a workflow nobody runs, so the
   * error events the SDK publishes for the addressable ones are foreign to the runtime and ignored.
   */
  private static void badCommand(Channel ch, int i) throws Exception {
    String[][] targets = {{"stock", "reserve"}, {"pay", "charge"}, {"ship", "ship"}};
    String[] t = targets[i % 3];
    Map<String, Object> h = new HashMap<>();
    h.put(Headers.WORKFLOW, "poison-elsewhere");
    h.put(Headers.INSTANCE, UUID.randomUUID().toString());
    h.put(Headers.STEP, t[1]);
    h.put(Headers.ACTION, t[1]);
    h.put(Headers.ATTEMPT, 1);
    h.put(Headers.ENTITY, "order");
    h.put(Headers.RETRIES, 0);
    String contentType = Headers.CONTENT_TYPE_JSON;
    byte[] body = "{\"instanceId\":\"x\",\"step\":\"s\",\"attempt\":1,\"input\":{}}".getBytes(StandardCharsets.UTF_8);
    switch (i % 5) {
      case 0 -> body = "<xml/>".getBytes(StandardCharsets.UTF_8);
      case 1 -> contentType = "application/octet-stream";
      case 2 -> h.remove(Headers.ENTITY);
      case 3 -> h.put(Headers.RETRIES, "many");
      default -> body = "\"just a string\"".getBytes(StandardCharsets.UTF_8);
    }
    ch.basicPublish(Names.commandExchange(t[0]), Names.commandRoutingKey(t[0], t[1]), true,
        new AMQP.BasicProperties.Builder().messageId(UUID.randomUUID().toString()).contentType(contentType)
            .deliveryMode(2).headers(h).build(), body);
  }

  /** Takes every parked message out and counts those without an {@code x-exception-message}. */
  private static long drainParkedWithoutReason(Rig rig) throws Exception {
    List<String> queues = new ArrayList<>(List.of(Names.orchestratorDeadLetterQueue(Rig.WORKFLOW)));
    Rig.SERVICES.forEach((s, cs) -> cs.forEach(c -> queues.add(Names.deadLetterQueue(s, c))));
    long missing = 0;
    try (Channel ch = rig.amqp().createChannel()) {
      for (String q : queues) {
        GetResponse r;
        while ((r = ch.basicGet(q, true)) != null) {
          Object reason = r.getProps().getHeaders() == null ? null
              : r.getProps().getHeaders().get(Headers.EXCEPTION_MESSAGE);
          if (reason == null || reason.toString().isBlank()) {
            missing++;
          }
        }
      }
    }
    return missing;
  }
}
