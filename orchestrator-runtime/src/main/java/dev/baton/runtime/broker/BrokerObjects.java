package dev.baton.runtime.broker;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import dev.baton.messaging.RecoveringChannel;
import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * Whether a queue or an exchange exists, by passive declare on a throwaway channel (a 404 closes the channel it
 * happens on). Passive declares need no configure permission, so the runtime's restricted user may use them. Only a
 * 404 means "missing": any other failure (broker away) is thrown, so callers never mistake an outage for a missing
 * object.
 */
public final class BrokerObjects {

  private BrokerObjects() {}

  @FunctionalInterface
  private interface Probe {
    void run(Channel channel) throws IOException;
  }

  public static boolean queueExists(Connection connection, String queue) throws IOException {
    return exists(connection, ch -> ch.queueDeclarePassive(queue));
  }

  public static boolean exchangeExists(Connection connection, String exchange) throws IOException {
    return exists(connection, ch -> ch.exchangeDeclarePassive(exchange));
  }

  private static boolean exists(Connection connection, Probe probe) throws IOException {
    Channel ch = connection.createChannel();
    try {
      probe.run(ch);
      return true;
    } catch (IOException e) {
      if (isNotFound(e)) {
        return false;
      }
      throw e;
    } finally {
      if (ch.isOpen()) {
        try {
          ch.close();
        } catch (IOException | TimeoutException | RuntimeException ignored) {
          // throwaway channel
        }
      } else {
        RecoveringChannel.discard(ch); // closed by the probe or an outage: keep automatic recovery from reopening it
      }
    }
  }

  private static boolean isNotFound(IOException e) {
    return e.getCause() instanceof ShutdownSignalException s
        && s.getReason() instanceof AMQP.Channel.Close close
        && close.getReplyCode() == AMQP.NOT_FOUND;
  }
}
