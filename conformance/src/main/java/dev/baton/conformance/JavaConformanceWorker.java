package dev.baton.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.worker.BatonWorker;
import dev.baton.worker.Command;
import dev.baton.worker.CommandResult;
import dev.baton.worker.Event;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Java SDK's conformance worker (conformance/README.md): the service {@code S} with the command {@code act} and the
 * subscription {@code heard}, written with the worker SDK's public API only, configured by {@code fromEnvironment()}
 * as a pod is, plus the suite's {@code BATON_CONFORMANCE_*} variables.
 */
public final class JavaConformanceWorker {

  static final String LOG = "BATON_CONFORMANCE_LOG";
  static final String HANDLER_TIMEOUT_MS = "BATON_CONFORMANCE_HANDLER_TIMEOUT_MS";
  static final String MAX_RESULT_BYTES = "BATON_CONFORMANCE_MAX_RESULT_BYTES";
  static final String CONNECTION_NAME = "BATON_CONFORMANCE_CONNECTION_NAME";

  private final HandlerLog log;

  private JavaConformanceWorker(HandlerLog log) {
    this.log = log;
  }

  public static void main(String[] args) {
    Map<String, String> env = System.getenv();
    JavaConformanceWorker handlers = new JavaConformanceWorker(new HandlerLog(Path.of(required(env, LOG))));
    BatonWorker worker = BatonWorker.builder()
        .fromEnvironment()
        .handlerTimeout(Duration.ofMillis(Long.parseLong(required(env, HANDLER_TIMEOUT_MS))))
        .maxResultBytes(Integer.parseInt(required(env, MAX_RESULT_BYTES)))
        .connectionName(required(env, CONNECTION_NAME))
        .command("act", handlers::act)
        .subscription("heard", handlers::heard)
        .build();
    worker.closeOnJvmShutdown(); // SIGTERM: a graceful stop, then exit 0
    worker.start();
    System.out.println("READY");
    System.out.flush();
  }

  CommandResult act(Command command) throws Exception {
    JsonNode input = command.input();
    String conformanceCase = input.path("case").asText("echo");
    log.started("command", command.messageId(), conformanceCase, command.retries());
    return switch (conformanceCase) {
      case "echo" -> CommandResult.success(Map.of("echo", input.get("value")));
      case "decline" -> CommandResult.failed("DECLINED", "declined by the conformance worker");
      case "crash" -> throw new IllegalStateException("boom");
      case "crash-once" -> {
        if (command.retries() == 0) {
          throw new IllegalStateException("boom");
        }
        yield CommandResult.success(Map.of("recovered", true));
      }
      case "sleep" -> {
        long ms = input.path("ms").asLong();
        sleepThroughInterrupts(ms);
        yield CommandResult.success(Map.of("slept", ms));
      }
      case "big" -> CommandResult.success(Map.of("blob", "x".repeat(input.path("bytes").asInt())));
      default -> throw new IllegalArgumentException("no conformance case " + conformanceCase);
    };
  }

  void heard(Event event) {
    String conformanceCase = event.body().path("case").asText("echo");
    log.started("event", event.messageId(), conformanceCase, event.retries());
    if (conformanceCase.equals("crash")) {
      throw new IllegalStateException("boom");
    }
  }

  /**
   * Waits the whole time even when the SDK interrupts the handler at its time limit, as a handler blocked in I/O
   * would: the case "handler time limit" checks that such a run is neither run again nor settled before it ends.
   */
  private static void sleepThroughInterrupts(long ms) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    boolean interrupted = false;
    for (long left = ms; left > 0; left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())) {
      try {
        Thread.sleep(left);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static String required(Map<String, String> env, String name) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(name + " is not set: the conformance suite sets it (conformance/README.md)");
    }
    return v;
  }
}
