package dev.baton.operator.it;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.baton.sandbox.RabbitVhost;
import java.nio.charset.StandardCharsets;

/** Publishing and counting over AMQP as the admin user: counts are exact, unlike the management statistics. */
public final class Amqp {

  private Amqp() {}

  public static void publish(RabbitVhost vhost, String exchange, String routingKey) {
    try (Connection c = vhost.newConnection("test-publisher"); Channel ch = c.createChannel()) {
      ch.confirmSelect();
      ch.basicPublish(exchange, routingKey, true,
          new AMQP.BasicProperties.Builder().deliveryMode(2).contentType("application/json").build(),
          "{}".getBytes(StandardCharsets.UTF_8));
      ch.waitForConfirmsOrDie(5_000);
    } catch (Exception e) {
      throw new IllegalStateException("publishing to " + exchange + " failed", e);
    }
  }

  /** Messages ready in a queue, or -1 when it does not exist. */
  public static long ready(RabbitVhost vhost, String queue) {
    try (Connection c = vhost.newConnection("test-counter"); Channel ch = c.createChannel()) {
      return ch.queueDeclarePassive(queue).getMessageCount();
    } catch (Exception e) {
      return -1;
    }
  }
}
