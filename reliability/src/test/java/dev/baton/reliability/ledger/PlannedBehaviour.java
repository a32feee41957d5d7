package dev.baton.reliability.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.worker.Command;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * What a worker does with a command, as its instance's plan says: the start input carries {@code "plan":
 * {"<step>/<command>": "<behaviour>"}} (the input travels on every command of the instance), so a worker in any JVM,
 * restarted or not, behaves the same. A behaviour applies to the first dispatch of its step ({@code attempt} 1); a
 * re-sent step (after a timeout) and every command without a plan entry just succeed.
 *
 * <ul>
 *   <li>{@code succeed};
 *   <li>{@code fail}: a business refusal ({@code failed}), no effect;
 *   <li>{@code error:N}: a technical failure on the first N deliveries (climbs the SDK's staircase, sometimes past
 *       the deadline, then answered {@code expired});
 *   <li>{@code slow:MS}: works MS ms, interruptibly (the SDK interrupts it at the deadline);
 *   <li>{@code hang:MS}: hangs MS ms deaf to the interrupt, then applies its effect — if the deadline allows.
 * </ul>
 */
public final class PlannedBehaviour implements LedgerWorker.HandlerFault {

  /** The input field that holds the plan. */
  public static final String PLAN = "plan";

  /** The plan's key for a command of a step. */
  public static String key(String step, String command) {
    return step + "/" + command;
  }

  @Override
  public Map<String, Object> before(Command cmd) throws Exception {
    JsonNode planned = cmd.input().path(PLAN).path(key(cmd.step(), cmd.name()));
    if (!planned.isTextual() || cmd.attempt() != 1) {
      return Map.of();
    }
    String[] b = planned.asText().split(":");
    switch (b[0]) {
      case "fail" -> throw new LedgerWorker.Refused("Refused", "the plan refuses " + cmd.step());
      case "error" -> {
        if (cmd.retries() < Integer.parseInt(b[1])) {
          throw new IllegalStateException("planned technical failure " + (cmd.retries() + 1) + " of " + b[1]);
        }
      }
      case "slow" -> Thread.sleep(Long.parseLong(b[1]));
      case "hang" -> hangDeaf(Long.parseLong(b[1]));
      default -> { } // succeed
    }
    return Map.of();
  }

  /** A handler blocked where the interrupt does not reach it (a call stuck in I/O, say). */
  private static void hangDeaf(long millis) {
    long until = System.nanoTime() + millis * 1_000_000L;
    while (System.nanoTime() < until) {
      Thread.interrupted();
      LockSupport.parkNanos(Math.min(50_000_000L, until - System.nanoTime()));
    }
  }
}
