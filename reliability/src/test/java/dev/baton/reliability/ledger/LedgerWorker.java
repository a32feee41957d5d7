package dev.baton.reliability.ledger;

import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.settings.SettingsReader;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.worker.BatonWorker;
import dev.baton.worker.Command;
import dev.baton.worker.CommandResult;
import dev.baton.worker.JdbcIdempotencyStore;
import dev.baton.worker.WorkerListener;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test worker written with the worker SDK: every command of its service records its effect in the {@link Ledger}
 * together with the idempotency record, in one transaction (the SDK's {@link JdbcIdempotencyStore#transactional})
 * that commits only before the command's deadline, and answers success — unless a scenario's {@link HandlerFault}
 * (in the JVM of its own: the instance's {@link PlannedBehaviour}) makes it refuse, fail, run slow or hang first. Run
 * in-process ({@link #build}) or as its own JVM ({@link #main}, configured like a pod by the {@code BATON_*} variables
 * plus {@code LEDGER_JDBC_URL}, {@code LEDGER_WORK_MILLIS} and {@code WORKER_NAME}), so that it can be killed with
 * SIGKILL in the middle of a message.
 */
public final class LedgerWorker {

  public static final String LEDGER_JDBC_URL = "LEDGER_JDBC_URL";
  public static final String WORK_MILLIS = "LEDGER_WORK_MILLIS";
  public static final String WORKER_NAME = "WORKER_NAME";

  /** Handler calls, committed or not (a killed worker's last ones never commit). */
  public static final AtomicLong CALLS = new AtomicLong();

  private LedgerWorker() {}

  /** Something a scenario makes a handler do before its effect, such as hang; it may add to the handler's output. */
  @FunctionalInterface
  public interface HandlerFault {
    HandlerFault NONE = cmd -> Map.of();

    /**
     * @return more output fields (none: an empty map)
     * @throws Refused to answer {@code failed} (a business refusal) without an effect
     */
    Map<String, Object> before(Command cmd) throws Exception;
  }

  /** A business refusal a {@link HandlerFault} asks for: the command is answered {@code failed}, nothing applied. */
  public static final class Refused extends Exception {
    private final String code;

    public Refused(String code, String reason) {
      super(reason, null, false, false);
      this.code = code;
    }
  }

  /** The effect would commit at or after the command's deadline: rolled back, a technical failure. */
  static final class PastDeadline extends Exception {
    PastDeadline(Command cmd, Instant deadline) {
      super("the effect of " + cmd.name() + " (" + cmd.instanceId() + ", attempt " + cmd.attempt() + ") would land"
          + " after its deadline " + deadline + ": not committed", null, false, false);
    }
  }

  /** A worker for {@code model}; the caller supplies the broker (uri or factory) and starts it. */
  public static BatonWorker.Builder build(BatonWorker.Builder builder, ServiceModel model, Ledger ledger,
      String workerName, long workMillis) {
    return build(builder, model, ledger, workerName, workMillis, HandlerFault.NONE);
  }

  /**
   * As {@link #build(BatonWorker.Builder, ServiceModel, Ledger, String, long)}, with {@code fault} before each effect.
   * Each effect is fenced by the command's deadline ({@link Command#deadline()}): its transaction commits only while
   * the database's clock is before it, else the handler fails technically (the SDK then answers {@code expired}), as a
   * careful worker does: once the deadline passed the runtime may have re-sent or compensated the step, and an effect
   * landing then could not be undone. The commands the SDK answers {@code expired} are recorded too.
   */
  public static BatonWorker.Builder build(BatonWorker.Builder builder, ServiceModel model, Ledger ledger,
      String workerName, long workMillis, HandlerFault fault) {
    JdbcIdempotencyStore store = ledger.idempotencyStore();
    builder.idempotency(store);
    builder.listener(new WorkerListener() {
      @Override
      public void expired(String consumer, String messageId, Duration late) {
        ledger.recordExpired(messageId, consumer, late);
      }
    });
    for (ServiceModel.Command command : model.commands()) {
      builder.command(command.name(), store.transactional((cmd, c) -> {
        CALLS.incrementAndGet();
        Map<String, Object> more;
        try {
          more = fault.before(cmd);
        } catch (Refused refused) {
          return CommandResult.failed(refused.code, refused.getMessage());
        }
        Instant deadline = cmd.deadline().orElse(null);
        Ledger.recordEffect(c, cmd.instanceId(), cmd.step(), cmd.action(), cmd.attempt(), cmd.messageId(),
            model.service(), workerName, deadline);
        if (workMillis > 0) {
          Thread.sleep(workMillis); // the effect is written but not committed: a kill now must leave no trace
        }
        if (deadline != null && !Ledger.beforeDeadline(c, deadline)) {
          throw new PastDeadline(cmd, deadline);
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
        own.workMillis(), new PlannedBehaviour()).build();
    worker.closeOnJvmShutdown();
    worker.start();
    System.out.println("LEDGER-WORKER-STARTED " + own.name());
    new CountDownLatch(1).await();
  }

  /** The variables of this test worker beside the pod's {@code BATON_*} ones. */
  private record Own(String name, String jdbcUrl, String jdbcUsername, String jdbcPassword, int workMillis) {}
}
