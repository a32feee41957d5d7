package dev.baton.reliability.ledger;

import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.settings.SettingsReader;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.worker.BatonWorker;
import dev.baton.worker.CommandResult;
import dev.baton.worker.JdbcIdempotencyStore;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test worker written with the worker SDK: every command of its service records its effect in the {@link Ledger}
 * together with the idempotency record, in one transaction (the SDK's {@link JdbcIdempotencyStore#transactional}),
 * and answers success. Run in-process ({@link #build}) or as its own JVM ({@link #main}, configured like a pod by the
 * {@code BATON_*} variables plus {@code LEDGER_JDBC_URL}, {@code LEDGER_WORK_MILLIS} and {@code WORKER_NAME}), so
 * that it can be killed with SIGKILL in the middle of a message.
 */
public final class LedgerWorker {

  public static final String LEDGER_JDBC_URL = "LEDGER_JDBC_URL";
  public static final String WORK_MILLIS = "LEDGER_WORK_MILLIS";
  public static final String WORKER_NAME = "WORKER_NAME";

  /** Handler calls, committed or not (a killed worker's last ones never commit). */
  public static final AtomicLong CALLS = new AtomicLong();

  private LedgerWorker() {}

  /** A worker for {@code model}; the caller supplies the broker (uri or factory) and starts it. */
  /** Something a scenario makes a handler do before its effect, such as hang; it may add to the handler's output. */
  @FunctionalInterface
  public interface HandlerFault {
    HandlerFault NONE = cmd -> Map.of();

    /** @return more output fields (none: an empty map) */
    Map<String, Object> before(dev.baton.worker.Command cmd) throws Exception;
  }

  public static BatonWorker.Builder build(BatonWorker.Builder builder, ServiceModel model, Ledger ledger,
      String workerName, long workMillis) {
    return build(builder, model, ledger, workerName, workMillis, HandlerFault.NONE);
  }

  /** As {@link #build(BatonWorker.Builder, ServiceModel, Ledger, String, long)}, with {@code fault} before each effect. */
  public static BatonWorker.Builder build(BatonWorker.Builder builder, ServiceModel model, Ledger ledger,
      String workerName, long workMillis, HandlerFault fault) {
    JdbcIdempotencyStore store = ledger.idempotencyStore();
    builder.idempotency(store);
    for (ServiceModel.Command command : model.commands()) {
      builder.command(command.name(), store.transactional((cmd, c) -> {
        CALLS.incrementAndGet();
        Map<String, Object> more = fault.before(cmd);
        Ledger.recordEffect(c, cmd.instanceId(), cmd.step(), cmd.action(), cmd.attempt(), cmd.messageId(),
            model.service(), workerName);
        if (workMillis > 0) {
          Thread.sleep(workMillis); // the effect is written but not committed: a kill now must leave no trace
        }
        Map<String, Object> output = new java.util.HashMap<>(more);
        output.put("by", workerName);
        output.put("step", cmd.step());
        return CommandResult.success(output);
      }));
    }
    return builder;
  }

  public static void main(String[] args) throws InterruptedException {
    Map<String, String> env = System.getenv();
    Own own = SettingsReader.read(env, r -> new Own(r.string(WORKER_NAME, "ledger-worker"),
        r.requiredString(LEDGER_JDBC_URL), r.string("LEDGER_JDBC_USERNAME", "postgres"),
        r.secret("LEDGER_JDBC_PASSWORD", ""), r.integer(WORK_MILLIS, 0, 0, Integer.MAX_VALUE)));
    Ledger ledger = new Ledger(own.jdbcUrl(), own.jdbcUsername(), own.jdbcPassword(), 8);
    WorkerEnvironment environment = WorkerEnvironment.read(env);
    BatonWorker worker = build(BatonWorker.builder().fromEnvironment(env), environment.model(), ledger, own.name(),
        own.workMillis()).build();
    worker.closeOnJvmShutdown();
    worker.start();
    System.out.println("LEDGER-WORKER-STARTED " + own.name());
    new CountDownLatch(1).await();
  }

  /** The variables of this test worker beside the pod's {@code BATON_*} ones. */
  private record Own(String name, String jdbcUrl, String jdbcUsername, String jdbcPassword, int workMillis) {}
}
