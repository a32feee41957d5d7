package dev.baton.runtime.messaging;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parks events the runtime cannot use in {@code q.dlx.orchestrator.W} (through the default exchange, which the
 * runtime's broker user may write), with the reason in {@code x-exception-*} headers, and waits for the broker's
 * confirm before the caller ACKs the original. Parking is rare, so one confirm channel used one message at a time is
 * enough.
 */
final class ParkingLot {

  private static final Logger LOG = LoggerFactory.getLogger(ParkingLot.class);
  private static final long CONFIRM_TIMEOUT_MS = 10_000;
  private static final int MAX_REASON = 2_000;

  private final Connection connection;
  private Channel channel;
  /** {@link System#nanoTime()} when the channel was first seen closed, 0 while it is open. */
  private long channelClosedSince;
  private volatile boolean returned;

  ParkingLot(Connection connection) {
    this.connection = connection;
  }

  /** @return true once the broker has confirmed the parked copy; false when it could not be parked */
  synchronized boolean park(String workflow, String exchange, String routingKey, AMQP.BasicProperties props,
      byte[] body, String reason, String type) {
    Map<String, Object> headers = new HashMap<>(props.getHeaders() == null ? Map.of() : props.getHeaders());
    headers.put(Headers.EXCEPTION_MESSAGE, reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason);
    headers.put(Headers.EXCEPTION_TYPE, type);
    headers.put(Headers.ORIGINAL_ROUTING_KEY, routingKey);
    headers.put(Headers.ORIGINAL_EXCHANGE, exchange);
    AMQP.BasicProperties parked = props.builder().headers(headers).deliveryMode(2).build();
    String parkingQueue = Names.orchestratorDeadLetterQueue(workflow);
    try {
      Channel ch = channel();
      returned = false;
      ch.basicPublish("", parkingQueue, true, parked, body == null ? new byte[0] : body);
      boolean acked = ch.waitForConfirms(CONFIRM_TIMEOUT_MS);
      if (returned) {
        LOG.error("Cannot park an event of workflow {}: queue {} does not exist", workflow, parkingQueue);
        return false;
      }
      return acked;
    } catch (IOException | TimeoutException | RuntimeException e) {
      LOG.error("Cannot park an event of workflow {} in {}: {}", workflow, parkingQueue, e.toString());
      closeQuietly();
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private Channel channel() throws IOException {
    channelClosedSince = RecoveringChannels.closedSince(channel, channelClosedSince);
    if (RecoveringChannels.needsReplacing(channel, channelClosedSince)) {
      RecoveringChannels.discard(channel);
      channelClosedSince = 0;
      Channel ch = connection.createChannel();
      ch.confirmSelect();
      ch.addReturnListener(r -> returned = true);
      channel = ch;
    }
    return channel;
  }

  /**
   * After a failure: an open channel is closed and replaced on next use; a closed one is kept for the connection's
   * automatic recovery to reopen ({@link RecoveringChannels}), rather than left to come back next to a new one.
   */
  private void closeQuietly() {
    if (channel == null || !channel.isOpen()) {
      return;
    }
    try {
      channel.close();
    } catch (IOException | TimeoutException | RuntimeException ignored) {
      // replaced on next use
    }
    channel = null;
  }
}
