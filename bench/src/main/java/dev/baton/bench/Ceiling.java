package dev.baton.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.baton.contract.topology.QueueType;
import dev.baton.sandbox.PostgresDatabase;
import dev.baton.sandbox.RabbitVhost;
import dev.baton.sandbox.Sandbox;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ceiling: the same work per step as Baton, written straight on amqp-client and JDBC with none of Baton's code.
 * Per step: one transaction that updates the instance row (a locked update, checking the step it answers, like
 * Baton's stale-event check) and inserts the next command into an outbox table; then two persistent, confirmed hops
 * (command orchestrator → worker, event worker → orchestrator) on durable queues, each delivery manually acked
 * (the orchestrator's after the commit, the worker's after its event is confirmed).
 *
 * <p>It gets the same structural advantages Baton has (several consumer threads, events already waiting share one
 * transaction, asynchronous confirms in the worker) and nothing else: no JSON parsing, no idempotency table, no
 * history rows, no metrics. Each consumer thread publishes the commands it just committed itself, waits for their
 * confirms and deletes their outbox rows (the outbox is there for a crash between commit and publish, which the
 * ceiling does not need to recover from, but it pays for it).
 *
 * <p>With starts, it takes them over HTTP on the server stack Baton's API runs on ({@link CeilingStartEndpoint}), from
 * the same load generator ({@link LoadGenerator}), so that Baton's sustained loop and the fixed-rate points compare
 * with it like for like.
 */
final class Ceiling implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Ceiling.class);
  private static final String CMD_EX = "ceiling.command.topic.ex";
  private static final String EVT_EX = "ceiling.event.topic.ex";
  private static final String CMD_Q = "q.ceiling.cmd";
  private static final String EVT_Q = "q.ceiling.orchestrator";

  private final BenchConfig config;
  /** Its own vhost and database, as Baton's runs have theirs. */
  private final Sandbox infrastructure;
  private final RabbitVhost vhost;
  private final PostgresDatabase database;
  private final Connection consumerConnection;
  private final Connection publisherConnection;
  private final Connection workerConnection;
  private final AtomicLong finished = new AtomicLong();
  private final AtomicLong stepsApplied = new AtomicLong();
  private final List<Lane> lanes = new ArrayList<>();
  private final List<Channel> workerChannels = new ArrayList<>();
  private final byte[] commandBody;
  private volatile boolean running = true;
  /** With starts: where they come in, over HTTP (null when preloaded). */
  private CeilingStartEndpoint endpoint;
  /**
   * While set (the fixed-rate runs): when each instance's command in flight was dispatched ({@link System#nanoTime} as
   * the dispatching transaction began, as Baton's step rows take the transaction's {@code now()}).
   */
  private volatile Map<Long, Long> dispatchedAt;
  /** With {@link #dispatchedAt}: when each running instance's start transaction began (its row's created_at). */
  private final Map<Long, Long> startedAt = new ConcurrentHashMap<>();
  /** Step latencies measured, by when the step was dispatched. */
  private final Queue<Sample> stepSamples = new ConcurrentLinkedQueue<>();
  /** Start to the last step's result applied, by when the instance started. */
  private final Queue<Sample> endToEndSamples = new ConcurrentLinkedQueue<>();
  private final AtomicLong nextInstance = new AtomicLong();
  private final AtomicLong started = new AtomicLong();
  private final List<Starter> starters = new ArrayList<>();

  /** A duration measured by the JVM's clock, and when it began ({@link System#nanoTime}). */
  private record Sample(long at, long nanos) {}

  Ceiling(BenchConfig config) {
    this.config = config;
    this.infrastructure = Sandbox.builder("bench-ceiling").vhost().database()
        .with(s -> Resources.trackDatabase(s.database().name())).start();
    try {
      this.vhost = infrastructure.vhost();
      this.database = infrastructure.database();
      this.consumerConnection = vhost.newConnection("ceiling-consumer");
      this.publisherConnection = vhost.newConnection("ceiling-publisher");
      this.workerConnection = vhost.newConnection("ceiling-worker");
      schema();
      topology();
    } catch (RuntimeException e) {
      infrastructure.close();
      throw e;
    }
    // A command body about as big as Baton's: the instance input plus some metadata.
    this.commandBody = ("{\"meta\":\"" + "m".repeat(200) + "\",\"input\":" + config.input(0) + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private void schema() {
    try (java.sql.Connection c = database.connect(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE ci (id bigint PRIMARY KEY, step integer NOT NULL, steps integer NOT NULL,"
          + " created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz, finished_at timestamptz)");
      s.execute("CREATE TABLE co (id bigserial PRIMARY KEY, instance_id bigint NOT NULL, step integer NOT NULL,"
          + " body bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
    } catch (SQLException e) {
      throw new IllegalStateException("ceiling schema", e);
    }
  }

  private void topology() {
    Map<String, Object> args = new HashMap<>();
    args.put("x-queue-type", config.queueType() == QueueType.QUORUM ? "quorum" : "classic");
    try (Channel ch = consumerConnection.createChannel()) {
      ch.exchangeDeclare(CMD_EX, "topic", true);
      ch.exchangeDeclare(EVT_EX, "topic", true);
      ch.queueDeclare(CMD_Q, true, false, false, args);
      ch.queueDeclare(EVT_Q, true, false, false, args);
      ch.queueBind(CMD_Q, CMD_EX, "#");
      ch.queueBind(EVT_Q, EVT_EX, "#");
    } catch (Exception e) {
      throw new IllegalStateException("ceiling topology", e);
    }
  }

  /** Steps per second and what the drain used. */
  record Result(double stepsPerSecond, Resources.Usage usage) {}

  /** The closed loop with starts: steps/s and starts/s in the window after the warm-up. */
  record WithStarts(int inFlight, double seconds, double stepsPerSecond, double startsPerSecond,
      Resources.Usage usage) {}

  /** Starts that share one transaction and one confirm wait, as Baton's group commit lets concurrent starts. */
  static final int START_GROUP = 64;
  /** Start writers, as Baton's group commit has. */
  static final int STARTERS = 2;

  /**
   * Preloads {@code instances} instances with their first command queued, then starts the workers and measures
   * until every instance has done all its steps.
   */
  Result run(int instances) throws Exception {
    startLanes();
    // Starts are not measured: the instances and their first commands go in at once.
    try (java.sql.Connection c = database.connect(); Statement s = c.createStatement()) {
      s.execute("INSERT INTO ci (id, step, steps) SELECT g, 0, " + config.steps() + " FROM generate_series(1, "
          + instances + ") g");
      s.execute("ANALYZE"); // as for Baton: statistics of a database in use, not of empty tables
    }
    try (Channel ch = publisherConnection.createChannel()) {
      ch.confirmSelect();
      for (long id = 1; id <= instances; id++) {
        ch.basicPublish(CMD_EX, "service.ceiling.step", false, commandProps(id, 0), commandBody);
        if (id % 1000 == 0) {
          ch.waitForConfirmsOrDie(30_000);
        }
      }
      ch.waitForConfirmsOrDie(30_000);
    }
    Resources resources = Resources.start();
    long t0 = System.nanoTime();
    startWorkers();
    long deadline = t0 + TimeUnit.MINUTES.toNanos(10);
    while (finished.get() < instances) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the ceiling pipeline stalled at " + finished.get() + "/" + instances);
      }
      Thread.sleep(5);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    Resources.Usage usage = resources.stop();
    double stepsPerSecond = (double) instances * config.steps() / seconds;
    LOG.info("ceiling: {} instances x {} steps in {} s = {} steps/s", instances, config.steps(),
        String.format("%.2f", seconds), String.format("%.0f", stepsPerSecond));
    return new Result(stepsPerSecond, usage);
  }

  /**
   * Baton's sustained loop on the raw pipeline: {@code inFlight} instances kept running, each one finished replaced
   * by a new start, from the same load generator as Baton's ({@link LoadGenerator#closedLoop}: the same clients, the
   * same requests) over HTTP ({@link CeilingStartEndpoint}). A start is what Baton's is: one transaction inserting the
   * instance and its first command into the outbox, committed, answered, then the command published with a confirm and
   * its outbox row deleted. Start writers take every request waiting (up to {@link #START_GROUP}) into one
   * transaction, as Baton's group commit does with concurrent start requests; nothing waits to fill a group.
   */
  WithStarts runWithStarts(int inFlight, int warmupSeconds, int seconds) throws Exception {
    startPipeline();
    Window w;
    try (LoadGenerator load = new LoadGenerator(endpoint.uri(), config);
        ClosedLoop loop = load.closedLoop(inFlight, finished::get)) {
      w = Window.measure(warmupSeconds, seconds, stepsApplied::get, started::get);
      loop.close();
      warnOfFailures(load);
    }
    LOG.info("ceiling with starts over HTTP ({} in flight): {} steps/s, {} starts/s", inFlight,
        String.format("%.0f", w.stepsPerSecond()), String.format("%.0f", w.startsPerSecond()));
    return new WithStarts(inFlight, w.seconds(), w.stepsPerSecond(), w.startsPerSecond(), w.usage());
  }

  /** The open loop at a fixed rate: steps/s and the latencies of what started in the window after the warm-up. */
  record FixedRate(double targetWorkflowsPerSecond, double seconds, double stepsPerSecond, Percentiles stepLatency,
      Percentiles endToEnd, Resources.Usage usage) {}

  /**
   * Starts instances at {@code rate} per second whatever the pipeline does, over HTTP from the same load generator as
   * Baton's fixed-rate points ({@link LoadGenerator#openLoop}), and measures by the JVM's clock what Baton's rows
   * measure: each step dispatched in the window, from the start of the transaction that dispatched it to the start of
   * the one that applied its result; each instance started in the window, from the start of its start's transaction
   * to the start of the one that applied its last step's result. The latency Baton's own pipeline could have at this
   * load.
   */
  FixedRate runFixedRate(double rate, int warmupSeconds, int seconds) throws Exception {
    dispatchedAt = new ConcurrentHashMap<>();
    startPipeline();
    OpenLoop o;
    try (LoadGenerator load = new LoadGenerator(endpoint.uri(), config)) {
      o = load.openLoop(rate, warmupSeconds, seconds, stepsApplied::get);
      warnOfFailures(load);
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (finished.get() < started.get() && System.nanoTime() < deadline) {
      Thread.sleep(5); // what started in the window finishes
    }
    Percentiles steps = Percentiles.of(within(stepSamples, o));
    Percentiles endToEnd = Percentiles.of(within(endToEndSamples, o));
    LOG.info("ceiling at a fixed {} workflows/s: {} steps/s, step p50 {} ms p99 {} ms, end to end p50 {} ms p99 {} ms",
        String.format("%.0f", rate), String.format("%.0f", o.stepsPerSecond()), String.format("%.1f", steps.p50()),
        String.format("%.1f", steps.p99()), String.format("%.1f", endToEnd.p50()),
        String.format("%.1f", endToEnd.p99()));
    return new FixedRate(rate, o.seconds(), o.stepsPerSecond(), steps, endToEnd, o.usage());
  }

  private static List<Long> within(Queue<Sample> samples, OpenLoop window) {
    return samples.stream().filter(s -> s.at() >= window.fromNanos() && s.at() < window.toNanos())
        .map(Sample::nanos).toList();
  }

  private static void warnOfFailures(LoadGenerator load) {
    if (load.failures() > 0) {
      LOG.warn("the ceiling refused or failed {} start request(s)", load.failures());
    }
  }

  /** Lanes, workers, the start endpoint and its writers. */
  private void startPipeline() throws IOException, SQLException {
    endpoint = new CeilingStartEndpoint(dev.baton.httpapi.ApiPaths.instances(Stack.NS, Stack.WORKFLOW));
    startLanes();
    startWorkers();
    for (int i = 0; i < STARTERS; i++) {
      Starter s = new Starter(i);
      starters.add(s);
      s.start();
    }
  }

  private void startLanes() throws IOException, SQLException {
    int threads = config.threads() > 0 ? config.threads() : 4;
    int prefetch = config.prefetch() > 0 ? config.prefetch() : 50;
    int batch = config.eventBatch() > 0 ? config.eventBatch() : 20;
    for (int i = 0; i < threads; i++) {
      Lane lane = new Lane(i, prefetch, batch);
      lanes.add(lane);
      lane.start();
    }
  }

  /** Starts what the endpoint's requests ask, a group per transaction, answering each once its group committed. */
  private final class Starter {
    private final Thread thread;
    private final Channel publisher;
    private final java.sql.Connection db;

    Starter(int index) throws IOException, SQLException {
      this.db = database.connect();
      db.setAutoCommit(false);
      this.publisher = publisherConnection.createChannel();
      publisher.confirmSelect();
      this.thread = new Thread(this::loop, "ceiling-starter-" + index);
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void loop() {
      while (running) {
        List<CeilingStartEndpoint.Waiting> group;
        try {
          group = endpoint.takeGroup(START_GROUP);
        } catch (InterruptedException e) {
          return;
        }
        try {
          startGroup(group);
        } catch (Exception e) {
          group.forEach(w -> w.answer().completeExceptionally(e)); // not answered yet: the group did not commit
          if (running) {
            LOG.error("ceiling starter failed", e);
          }
          return;
        }
      }
    }

    private void startGroup(List<CeilingStartEndpoint.Waiting> group) throws Exception {
      int n = group.size();
      long began = System.nanoTime();
      Long[] ids = new Long[n];
      byte[][] bodies = new byte[n][];
      long first = nextInstance.getAndAdd(n) + 1;
      for (int i = 0; i < n; i++) {
        ids[i] = first + i;
        bodies[i] = commandBody;
      }
      try (PreparedStatement ps = db.prepareStatement("INSERT INTO ci (id, step, steps)"
          + " SELECT id, 0, " + config.steps() + " FROM unnest(?::bigint[]) AS i(id)")) {
        ps.setArray(1, db.createArrayOf("bigint", ids));
        ps.executeUpdate();
      }
      Long[] outboxIds = new Long[n];
      try (PreparedStatement ps = db.prepareStatement("INSERT INTO co (instance_id, step, body)"
          + " SELECT id, 0, body FROM unnest(?::bigint[], ?::bytea[]) AS i(id, body) RETURNING id")) {
        ps.setArray(1, db.createArrayOf("bigint", ids));
        ps.setArray(2, db.createArrayOf("bytea", bodies));
        try (ResultSet rs = ps.executeQuery()) {
          for (int i = 0; rs.next(); i++) {
            outboxIds[i] = rs.getLong(1);
          }
        }
      }
      db.commit(); // durable: Baton answers the start here
      started.addAndGet(n);
      Map<Long, Long> times = dispatchedAt;
      if (times != null) {
        for (Long id : ids) {
          times.put(id, began);
          startedAt.put(id, began);
        }
      }
      for (int i = 0; i < n; i++) {
        group.get(i).answer().complete(ids[i]);
      }
      List<long[]> commands = new ArrayList<>(n);
      for (Long id : ids) {
        commands.add(new long[] {id, 0});
      }
      publishCommitted(publisher, db, commands, outboxIds);
    }

    void close() {
      thread.interrupt();
      stop(thread, db);
    }
  }

  /** Publishes committed commands ({instance, step}) with confirms, then deletes their outbox rows. */
  private void publishCommitted(Channel publisher, java.sql.Connection db, List<long[]> commands, Long[] outboxIds)
      throws Exception {
    for (long[] cmd : commands) {
      publisher.basicPublish(CMD_EX, "service.ceiling.step", false, commandProps(cmd[0], (int) cmd[1]),
          commandBody);
    }
    publisher.waitForConfirmsOrDie(30_000);
    try (Statement s = db.createStatement()) {
      s.execute("SET LOCAL synchronous_commit TO OFF"); // as Baton's relay: nothing waits on this one's durability
    }
    try (PreparedStatement ps = db.prepareStatement("DELETE FROM co WHERE id = ANY (?)")) {
      ps.setArray(1, db.createArrayOf("bigint", outboxIds));
      ps.executeUpdate();
    }
    db.commit();
  }

  private static void stop(Thread thread, java.sql.Connection db) {
    try {
      thread.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      db.close();
    } catch (SQLException ignored) {
      // dropped with the database
    }
  }

  private static AMQP.BasicProperties commandProps(long instance, int step) {
    Map<String, Object> headers = new LinkedHashMap<>();
    headers.put("baton-workflow", "ceiling");
    headers.put("baton-namespace", "default");
    headers.put("baton-revision", 1);
    headers.put("baton-instance", Long.toString(instance));
    headers.put("baton-step", "s" + step);
    headers.put("baton-attempt", 1);
    headers.put("baton-entity", "order");
    headers.put("baton-action", "step" + step);
    headers.put("baton-retries", 0);
    headers.put("x-step", step);
    return new AMQP.BasicProperties.Builder()
        .messageId(java.util.UUID.randomUUID().toString())
        .correlationId(Long.toString(instance))
        .contentType("application/json")
        .deliveryMode(2)
        .timestamp(new java.util.Date())
        .headers(headers)
        .build();
  }

  /** The worker: answers each command with an event, acks the command once the event is confirmed. */
  private void startWorkers() throws IOException {
    int channels = Math.min(config.steps(), Stack.MAX_SERVICES) * config.workerChannels();
    for (int i = 0; i < channels; i++) {
      Channel ch = workerConnection.createChannel();
      ch.basicQos(config.workerPrefetch());
      ch.confirmSelect();
      ConcurrentSkipListMap<Long, Long> waiting = new ConcurrentSkipListMap<>();
      ch.addConfirmListener(new ConfirmListener() {
        @Override
        public void handleAck(long seq, boolean multiple) throws IOException {
          settle(seq, multiple, true);
        }

        @Override
        public void handleNack(long seq, boolean multiple) throws IOException {
          settle(seq, multiple, false);
        }

        private void settle(long seq, boolean multiple, boolean ok) throws IOException {
          Map<Long, Long> done = multiple ? waiting.headMap(seq, true) : waiting.subMap(seq, true, seq, true);
          for (Long tag : new ArrayList<>(done.values())) {
            if (ok) {
              ch.basicAck(tag, false);
            } else {
              ch.basicNack(tag, false, true);
            }
          }
          done.clear();
        }
      });
      ch.basicConsume(CMD_Q, false, new DefaultConsumer(ch) {
        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
            throws IOException {
          Map<String, Object> headers = new LinkedHashMap<>();
          props.getHeaders().forEach((k, v) -> {
            if (k.startsWith("baton-") || k.startsWith("x-")) {
              headers.put(k, v);
            }
          });
          AMQP.BasicProperties event = new AMQP.BasicProperties.Builder()
              .messageId(java.util.UUID.randomUUID().toString())
              .correlationId(props.getCorrelationId())
              .contentType("application/json")
              .deliveryMode(2)
              .timestamp(new java.util.Date())
              .headers(headers)
              .build();
          byte[] eventBody = ("{\"instanceId\":\"" + props.getCorrelationId() + "\",\"step\":\"s\",\"attempt\":1,"
              + "\"output\":null}").getBytes(StandardCharsets.UTF_8);
          try {
            waiting.put(ch.getNextPublishSeqNo(), envelope.getDeliveryTag());
            ch.basicPublish(EVT_EX, "order.step.success", false, event, eventBody);
          } catch (com.rabbitmq.client.AlreadyClosedException e) {
            if (running) {
              throw e;
            }
            // the run is over and close() shut the connection under a delivery still being handled
          }
        }
      });
      workerChannels.add(ch);
    }
  }

  /** One orchestrator consumer thread: batch of waiting events → one transaction → ack → publish → delete. */
  private final class Lane {
    private final Thread thread;
    private final BlockingQueue<Delivery> inbox = new LinkedBlockingQueue<>();
    private final int batch;
    private final Channel consumer;
    private final Channel publisher;
    private final java.sql.Connection db;

    Lane(int index, int prefetch, int batch) throws IOException, SQLException {
      this.batch = batch;
      this.db = database.connect();
      db.setAutoCommit(false);
      this.publisher = publisherConnection.createChannel();
      publisher.confirmSelect();
      this.consumer = consumerConnection.createChannel();
      consumer.basicQos(prefetch);
      consumer.basicConsume(EVT_Q, false, new DefaultConsumer(consumer) {
        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
          inbox.add(new Delivery(envelope.getDeliveryTag(), props));
        }
      });
      this.thread = new Thread(this::loop, "ceiling-lane-" + index);
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void loop() {
      List<Delivery> deliveries = new ArrayList<>(batch);
      while (running) {
        try {
          Delivery first = inbox.poll(100, TimeUnit.MILLISECONDS);
          if (first == null) {
            continue;
          }
          deliveries.add(first);
          inbox.drainTo(deliveries, batch - 1);
          handle(deliveries);
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          if (running) {
            LOG.error("ceiling lane failed", e);
          }
          return;
        } finally {
          deliveries.clear();
        }
      }
    }

    private void handle(List<Delivery> deliveries) throws Exception {
      long began = System.nanoTime();
      int n = deliveries.size();
      Long[] ids = new Long[n];
      Integer[] steps = new Integer[n];
      for (int i = 0; i < n; i++) {
        Map<String, Object> h = deliveries.get(i).props().getHeaders();
        ids[i] = Long.parseLong(deliveries.get(i).props().getCorrelationId());
        steps[i] = ((Number) h.get("x-step")).intValue();
      }
      List<long[]> next = new ArrayList<>(n); // {instance, step}
      List<Long> done = new ArrayList<>();
      // The locked update: answers only the step in flight (a stale or duplicate event changes nothing).
      try (PreparedStatement ps = db.prepareStatement("UPDATE ci SET step = ci.step + 1, updated_at = now(),"
          + " finished_at = CASE WHEN ci.step + 1 >= ci.steps THEN now() END"
          + " FROM unnest(?::bigint[], ?::int[]) AS e(id, step) WHERE ci.id = e.id AND ci.step = e.step"
          + " RETURNING ci.id, ci.step, ci.steps")) {
        ps.setArray(1, db.createArrayOf("bigint", ids));
        ps.setArray(2, db.createArrayOf("integer", steps));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            if (rs.getInt(2) < rs.getInt(3)) {
              next.add(new long[] {rs.getLong(1), rs.getInt(2)});
            } else {
              done.add(rs.getLong(1));
            }
          }
        }
      }
      Long[] outboxIds = new Long[next.size()];
      if (!next.isEmpty()) {
        Long[] instances = new Long[next.size()];
        Integer[] nextSteps = new Integer[next.size()];
        byte[][] bodies = new byte[next.size()][];
        for (int i = 0; i < next.size(); i++) {
          instances[i] = next.get(i)[0];
          nextSteps[i] = (int) next.get(i)[1];
          bodies[i] = commandBody;
        }
        try (PreparedStatement ps = db.prepareStatement("INSERT INTO co (instance_id, step, body)"
            + " SELECT * FROM unnest(?::bigint[], ?::int[], ?::bytea[]) RETURNING id")) {
          ps.setArray(1, db.createArrayOf("bigint", instances));
          ps.setArray(2, db.createArrayOf("integer", nextSteps));
          ps.setArray(3, db.createArrayOf("bytea", bodies));
          try (ResultSet rs = ps.executeQuery()) {
            for (int i = 0; rs.next(); i++) {
              outboxIds[i] = rs.getLong(1);
            }
          }
        }
      }
      db.commit();
      // Committed: the events may go.
      consumer.basicAck(deliveries.get(n - 1).tag(), true);
      stepsApplied.addAndGet(n);
      finished.addAndGet(done.size());
      Map<Long, Long> times = dispatchedAt;
      if (times != null) {
        for (Long id : ids) {
          Long dispatched = times.remove(id);
          if (dispatched != null) {
            stepSamples.add(new Sample(dispatched, began - dispatched));
          }
        }
        for (long[] cmd : next) {
          times.put(cmd[0], began);
        }
        for (Long id : done) {
          Long start = startedAt.remove(id);
          if (start != null) {
            endToEndSamples.add(new Sample(start, began - start));
          }
        }
      }
      if (next.isEmpty()) {
        return;
      }
      publishCommitted(publisher, db, next, outboxIds);
    }

    void close() {
      stop(thread, db);
    }
  }

  private record Delivery(long tag, AMQP.BasicProperties props) {}

  @Override
  public void close() {
    running = false;
    if (endpoint != null) {
      endpoint.close();
    }
    starters.forEach(Starter::close);
    lanes.forEach(Lane::close);
    for (Connection c : new Connection[] {workerConnection, consumerConnection, publisherConnection}) {
      try {
        c.close(2_000);
      } catch (Exception ignored) {
        // the vhost goes next
      }
    }
    infrastructure.close();
  }
}
