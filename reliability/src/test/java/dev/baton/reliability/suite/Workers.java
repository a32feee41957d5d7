package dev.baton.reliability.suite;

import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.reliability.infra.JavaProcess;
import dev.baton.reliability.infra.PrivateRabbit;
import dev.baton.reliability.ledger.Ledger;
import dev.baton.reliability.ledger.LedgerWorker;
import dev.baton.sandbox.PostgresDatabase;
import dev.baton.worker.BatonWorker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A rig's ledger workers ({@link LedgerWorker}), one per service: in this JVM, or each in a JVM of its own so that it
 * can be SIGKILLed mid-message and started again. What a scenario changes in the in-process ones ({@link #configure},
 * {@link #handlerFault}) applies to those started afterwards.
 */
public final class Workers {

  private final ChildJvms jvms;
  private final String rig;
  private final PrivateRabbit rabbit;
  private final String vhost;
  /**
   * {@code 127.0.0.1:port} of every node of a cluster, or of a proxy in front of the node; empty: the node itself.
   */
  private volatile List<String> addresses;
  private final PostgresDatabase ledgerDb;
  private final Ledger ledger;
  /** service → its model, in the rig's order of services. */
  private final Map<String, ServiceModel> models;
  private final List<BatonWorker> inProcess = new ArrayList<>();
  private final Map<String, JavaProcess> processes = new HashMap<>();
  private final Map<String, Integer> restarts = new HashMap<>();
  /** Applied to every in-process worker's builder (a scenario's handler timeout, say). */
  private volatile UnaryOperator<BatonWorker.Builder> builder = b -> b;
  /** Called in every in-process handler before its effect (a scenario's hang); none by default. */
  private volatile LedgerWorker.HandlerFault handlerFault = LedgerWorker.HandlerFault.NONE;

  Workers(ChildJvms jvms, String rig, PrivateRabbit rabbit, String vhost, List<String> addresses,
      PostgresDatabase ledgerDb, Ledger ledger, Map<String, ServiceModel> models) {
    this.jvms = jvms;
    this.rig = rig;
    this.rabbit = rabbit;
    this.vhost = vhost;
    this.addresses = addresses;
    this.ledgerDb = ledgerDb;
    this.ledger = ledger;
    this.models = models;
  }

  /** Applied to every in-process worker's builder from now on. */
  public void configure(UnaryOperator<BatonWorker.Builder> change) {
    builder = change;
  }

  /** Called in every in-process handler started from now on, before its effect. */
  public void handlerFault(LedgerWorker.HandlerFault fault) {
    handlerFault = fault;
  }

  /** The workers started from now on connect to the broker at these addresses (a proxy in front of it, say). */
  public void connectThrough(List<String> brokerAddresses) {
    addresses = List.copyOf(brokerAddresses);
  }

  /** One in-process ledger worker per service, each handler taking {@code workMillis} in its transaction. */
  public void startInProcess(long workMillis) {
    startInProcess(workMillis, service -> true);
  }

  /** As {@link #startInProcess(long)}, for the services {@code which} accepts. */
  public void startInProcess(long workMillis, java.util.function.Predicate<String> which) {
    models.forEach((service, model) -> {
      if (!which.test(service)) {
        return;
      }
      BatonWorker.Builder b = BatonWorker.builder().environment(new WorkerEnvironment(model, 20))
          .connectionFactory(rabbit.connectionFactory(vhost)).addresses(addresses).concurrency(2)
          .connectionName("baton-worker-" + service + "-" + rig);
      BatonWorker w = LedgerWorker.build(builder.apply(b), model, ledger, service + "-in-process", workMillis,
          handlerFault).build();
      w.start();
      inProcess.add(w);
    });
  }

  /** The ledger worker of {@code service} in a JVM of its own. */
  public synchronized void startProcess(String service, long workMillis) {
    int n = restarts.merge(service, 1, Integer::sum);
    Map<String, String> env = new HashMap<>(new WorkerEnvironment(models.get(service), 20).variables());
    env.put(WorkerEnvironment.RABBITMQ_URI, rabbit.amqpUri(vhost));
    if (!addresses.isEmpty()) {
      env.put("BATON_RABBITMQ_ADDRESSES", String.join(",", addresses));
    }
    env.put(LedgerWorker.LEDGER_JDBC_URL, ledgerDb.jdbcUrl());
    env.put(LedgerWorker.WORK_MILLIS, String.valueOf(workMillis));
    env.put(LedgerWorker.WORKER_NAME, service + "-process-" + n);
    processes.put(service, jvms.start(LedgerWorker.class.getName(), List.of(), env, List.of(),
        "worker-" + service + "-" + n));
  }

  /** The JVM of {@code service}'s worker (the latest one started). */
  public synchronized JavaProcess process(String service) {
    return processes.get(service);
  }

  /** Closes the in-process workers and stops the processes with SIGTERM. */
  void close() {
    for (BatonWorker w : inProcess) {
      try {
        w.close();
      } catch (RuntimeException ignored) {
        // closing
      }
    }
    processes.values().forEach(JavaProcess::stop);
  }
}
