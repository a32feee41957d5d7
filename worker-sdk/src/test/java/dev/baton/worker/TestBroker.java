package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.SocketConfigurators;
import dev.baton.contract.Names;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.sandbox.AmqpTopology;
import dev.baton.sandbox.RabbitVhost;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A vhost on the real broker for one test class, with the topology the operator would declare, an admin channel
 * standing in for the orchestrator, and probe queues that watch the event exchanges. Register it as a static
 * {@code @RegisterExtension} field: the vhost lives from before the first test of the class to after the last.
 */
final class TestBroker implements BeforeAllCallback, AfterAllCallback {

  static final Duration WAIT = Duration.ofSeconds(10);

  private final String prefix;
  RabbitVhost vhost;
  private Connection connection;
  private Channel channel;
  /** The sockets of the connections of the last {@link #cuttableWorker}, so that a test can cut them. */
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  TestBroker(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    vhost = RabbitVhost.create(prefix);
    connection = vhost.newConnection("worker-sdk-test-admin");
    channel = connection.createChannel();
    channel.confirmSelect();
  }

  /** A service with one command {@code C} (entity {@code order}), retried along {@code staircase}. */
  static ServiceModel commandService(String service, String command, RetryStaircase staircase) {
    return new ServiceModel(service, QueueType.CLASSIC, List.of(new ServiceModel.Command(command, staircase)),
        List.of());
  }

  ServiceTopology declare(ServiceModel model) {
    ServiceTopology topology = TopologyPlanner.plan(model);
    AmqpTopology.declare(channel, topology);
    return topology;
  }

  /** Declares the model's topology and a probe on its event exchange: the probe queue, where its events arrive. */
  String declareWithEventProbe(ServiceModel model) throws IOException {
    return probe(declare(model).eventExchange(), "#");
  }

  void unbind(String queue, String exchange, String routingKey) throws IOException {
    channel.queueUnbind(queue, exchange, routingKey);
  }

  /** A worker builder for the model as the admin user. */
  BatonWorker.Builder worker(ServiceModel model) {
    return BatonWorker.builder()
        .environment(new WorkerEnvironment(model, 10))
        .connectionFactory(vhost.connectionFactory())
        .shutdownTimeout(Duration.ofSeconds(5));
  }

  /**
   * A worker builder like {@link #worker} whose connections {@link #cutConnections()} cuts, as a network drop would;
   * automatic recovery brings them back after 200 ms.
   */
  BatonWorker.Builder cuttableWorker(ServiceModel model) {
    sockets.clear();
    ConnectionFactory factory = vhost.connectionFactory();
    factory.setSocketConfigurator(socket -> {
      SocketConfigurators.defaultConfigurator().configure(socket);
      sockets.add(socket);
    });
    factory.setNetworkRecoveryInterval(200);
    return worker(model).connectionFactory(factory);
  }

  /** The network drops under the worker of {@link #cuttableWorker}. */
  void cutConnections() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
  }

  /** A queue that receives a copy of every message published to {@code exchange} with a matching key. */
  String probe(String exchange, String bindingKey) throws IOException {
    String queue = "probe." + UUID.randomUUID();
    channel.queueDeclare(queue, false, false, true, Map.of());
    channel.queueBind(queue, exchange, bindingKey);
    return queue;
  }

  /** Orchestrator-side: a command as docs/design.md#message-contract describes it, published with a confirm. */
  void sendCommand(String service, String command, String messageId, String body) throws Exception {
    sendCommand(service, command, commandProperties(messageId, "i-" + messageId, command), body);
  }

  void sendCommand(String service, String command, AMQP.BasicProperties properties, String body) throws Exception {
    publish(Names.commandExchange(service), Names.commandRoutingKey(service, command), properties, body);
  }

  /** {@code n} commands {@code m-0..m-(n-1)}, confirmed together. */
  void sendCommands(String service, String command, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      channel.basicPublish(Names.commandExchange(service), Names.commandRoutingKey(service, command), true,
          commandProperties("m-" + i, "i-" + i, command), commandBody("i-" + i, "{}").getBytes(StandardCharsets.UTF_8));
    }
    channel.waitForConfirmsOrDie(10_000);
  }

  void publish(String exchange, String routingKey, AMQP.BasicProperties properties, String body) throws Exception {
    channel.basicPublish(exchange, routingKey, true, properties, body.getBytes(StandardCharsets.UTF_8));
    channel.waitForConfirmsOrDie(5_000);
  }

  static AMQP.BasicProperties commandProperties(String messageId, String instance, String action) {
    return new AMQP.BasicProperties.Builder()
        .messageId(messageId)
        .correlationId(instance)
        .contentType("application/json")
        .timestamp(new Date())
        .deliveryMode(2)
        .headers(commandHeaders(instance, action))
        .build();
  }

  /** {@link #commandProperties} with one header more (or replaced). */
  static AMQP.BasicProperties commandProperties(String messageId, String action, String header, Object value) {
    AMQP.BasicProperties p = commandProperties(messageId, "i-" + messageId, action);
    Map<String, Object> headers = new LinkedHashMap<>(p.getHeaders());
    headers.put(header, value);
    return p.builder().headers(headers).build();
  }

  static Map<String, Object> commandHeaders(String instance, String action) {
    Map<String, Object> h = new LinkedHashMap<>();
    h.put("baton-workflow", "order-fulfilment");
    h.put("baton-revision", 3);
    h.put("baton-instance", instance);
    h.put("baton-step", "charge");
    h.put("baton-attempt", 1);
    h.put("baton-entity", "order");
    h.put("baton-action", action);
    h.put("baton-retries", 0);
    h.put("baton-namespace", "default");
    h.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    return h;
  }

  static String commandBody(String instance, String input) {
    return "{\"instanceId\":\"" + instance + "\",\"step\":\"charge\",\"attempt\":1,\"businessKey\":\"bk-" + instance
        + "\",\"input\":" + input + "}";
  }

  /** Takes the next message of {@code queue}, waiting for it. */
  GetResponse take(String queue) {
    return await().atMost(WAIT).pollInterval(Duration.ofMillis(20))
        .until(() -> channel.basicGet(queue, true), r -> r != null);
  }

  /** Takes {@code n} messages of {@code queue}, waiting for them. */
  List<GetResponse> take(String queue, int n) {
    List<GetResponse> got = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      got.add(take(queue));
    }
    return got;
  }

  /** Ready messages (unacked ones are not counted: close the worker first to see those too). */
  long count(String queue) throws IOException {
    return channel.messageCount(queue);
  }

  /** None of these queues holds a ready message (close the worker first to see its unacked ones too). */
  void assertEmpty(String... queues) throws IOException {
    for (String queue : queues) {
      assertThat(count(queue)).as("ready messages in " + queue).isZero();
    }
  }

  long consumers(String queue) throws IOException {
    return channel.consumerCount(queue);
  }

  static JsonNode json(GetResponse r) throws IOException {
    return Bodies.MAPPER.readTree(r.getBody());
  }

  static String header(GetResponse r, String name) {
    return HeaderValues.text(r.getProps().getHeaders().get(name));
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try {
      connection.close();
    } finally {
      vhost.close();
    }
  }
}
