package dev.baton.runtime.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.baton.conformance.HandlerLog;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@link TestWorker} as the raw-AMQP implementation of the worker conformance suite (conformance/README.md): a process
 * of its own serving the command {@code act} of {@code BATON_SERVICE} from {@code BATON_CONSUMER_ACT_QUEUE}, by the
 * command's {@code input.case}, on one connection named {@code BATON_CONFORMANCE_CONNECTION_NAME} (automatic recovery
 * on, as the client's default). It has what TestWorker has and nothing more: the cases the suite marks not
 * applicable to it say what that leaves out. It lives in TestWorker's package (the runtime's test jar) to use it as it
 * is.
 */
public final class RawConformanceWorker {

  private static final ObjectMapper JSON = new ObjectMapper();

  private RawConformanceWorker() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> env = System.getenv();
    HandlerLog log = new HandlerLog(Path.of(env.get("BATON_CONFORMANCE_LOG")));
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(env.get("BATON_RABBITMQ_URI"));
    if (env.get("BATON_RABBITMQ_USERNAME") != null) {
      factory.setUsername(env.get("BATON_RABBITMQ_USERNAME"));
      factory.setPassword(env.get("BATON_RABBITMQ_PASSWORD"));
    }
    factory.setNetworkRecoveryInterval(500);
    Connection connection = factory.newConnection(env.get("BATON_CONFORMANCE_CONNECTION_NAME"));
    TestWorker worker = new TestWorker(connection)
        .serve(env.get("BATON_CONSUMER_ACT_QUEUE"), env.get("BATON_SERVICE"), "act", c -> act(c, log));
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

  private static TestWorker.Reply act(TestWorker.Command c, HandlerLog log) {
    JsonNode input = c.body().path("input");
    String conformanceCase = input.path("case").asText("echo");
    Object retries = c.headers().get("baton-retries");
    log.started("command", c.messageId(), conformanceCase, retries == null ? 0 : Integer.parseInt(retries.toString()));
    return switch (conformanceCase) {
      case "echo" -> TestWorker.Reply.success(JSON.createObjectNode().set("echo", input.get("value")));
      case "decline" -> TestWorker.Reply.failed("DECLINED", "declined by the conformance worker");
      case "sleep" -> {
        try {
          Thread.sleep(input.path("ms").asLong());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        yield TestWorker.Reply.success(JSON.createObjectNode().put("slept", input.path("ms").asLong()));
      }
      case "big" -> TestWorker.Reply.success(JSON.createObjectNode().put("blob", "x".repeat(input.path("bytes").asInt())));
      default -> TestWorker.Reply.error("UNSUPPORTED", "the raw-AMQP worker has no case " + conformanceCase);
    };
  }
}
