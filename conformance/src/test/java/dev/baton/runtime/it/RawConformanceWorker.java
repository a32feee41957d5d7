package dev.baton.runtime.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.baton.conformance.HandlerLog;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.ServiceModel;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@link TestWorker} as the raw-AMQP implementation of the worker conformance suite (conformance/README.md): a process
 * of its own serving the command {@code act} (by the command's {@code input.case}) and the subscription {@code heard}
 * of {@code BATON_SERVICE}, with the staircases, the deadline rule and the result size limit
 * ({@code BATON_CONFORMANCE_MAX_RESULT_BYTES}) on, on one connection named {@code BATON_CONFORMANCE_CONNECTION_NAME}
 * (automatic recovery on, as the client's default). It has what TestWorker has and nothing more. It lives in
 * TestWorker's package (the runtime's test jar) to use it as it is.
 */
public final class RawConformanceWorker {

  private static final ObjectMapper JSON = new ObjectMapper();

  private RawConformanceWorker() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> env = System.getenv();
    HandlerLog log = new HandlerLog(Path.of(env.get("BATON_CONFORMANCE_LOG")));
    ServiceModel service = WorkerEnvironment.read(env).model();
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(env.get(WorkerEnvironment.RABBITMQ_URI));
    if (env.get(WorkerEnvironment.RABBITMQ_USERNAME) != null) {
      factory.setUsername(env.get(WorkerEnvironment.RABBITMQ_USERNAME));
      factory.setPassword(env.get(WorkerEnvironment.RABBITMQ_PASSWORD));
    }
    factory.setNetworkRecoveryInterval(500);
    Connection connection = factory.newConnection(env.get("BATON_CONFORMANCE_CONNECTION_NAME"));
    ServiceModel.Command act = service.commands().get(0);
    ServiceModel.Subscription heard = service.subscriptions().get(0);
    TestWorker worker = new TestWorker(connection)
        .serve(queue(env, act.name()), service.service(), act.name(), c -> act(c, log),
            new TestWorker.Rules(act.retry(), true)
                .limitingResultsTo(Integer.parseInt(env.get("BATON_CONFORMANCE_MAX_RESULT_BYTES"))))
        .subscribe(queue(env, heard.name()), service.service(), heard.name(), e -> heard(e, log),
            new TestWorker.Rules(heard.retry(), false));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      worker.close();
      connection.abort(5_000);
      stopped.countDown();
    }));
    System.out.println("READY");
    System.out.flush();
    stopped.await();
  }

  private static String queue(Map<String, String> env, String consumer) {
    return env.get(WorkerEnvironment.consumerPrefix(consumer) + "_QUEUE");
  }

  private static TestWorker.Reply act(TestWorker.Command c, HandlerLog log) {
    JsonNode input = c.body().path("input");
    String conformanceCase = input.path("case").asText("echo");
    Object retries = c.headers().get("baton-retries");
    int r = retries == null ? 0 : Integer.parseInt(retries.toString());
    log.started("command", c.messageId(), conformanceCase, r);
    return switch (conformanceCase) {
      case "echo" -> TestWorker.Reply.success(JSON.createObjectNode().set("echo", input.get("value")));
      case "decline" -> TestWorker.Reply.failed("DECLINED", "declined by the conformance worker");
      case "crash" -> throw new IllegalStateException("boom");
      case "crash-once" -> {
        if (r == 0) {
          throw new IllegalStateException("boom");
        }
        yield TestWorker.Reply.success(JSON.createObjectNode().put("recovered", true));
      }
      case "sleep" -> {
        try {
          Thread.sleep(input.path("ms").asLong());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        yield TestWorker.Reply.success(JSON.createObjectNode().put("slept", input.path("ms").asLong()));
      }
      case "big" -> TestWorker.Reply.success(
          JSON.createObjectNode().put("blob", "x".repeat(input.path("bytes").asInt())));
      default -> throw new IllegalArgumentException("no conformance case " + conformanceCase);
    };
  }

  private static void heard(TestWorker.Event e, HandlerLog log) {
    String conformanceCase = e.body().path("case").asText("echo");
    log.started("event", e.messageId(), conformanceCase, e.retries());
    if (conformanceCase.equals("crash")) {
      throw new IllegalStateException("boom");
    }
  }
}
