package dev.baton.runtime.events;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Envelope;

/**
 * A delivery waiting in a lane, with the channel it must be settled on.
 *
 * @param receivedNanos when the lane received it ({@link System#nanoTime}): the start of its wait for a batch
 */
record PendingDelivery(Channel channel, String workflow, Envelope envelope, AMQP.BasicProperties props, byte[] body,
    long receivedNanos) {

  PendingDelivery(Channel channel, String workflow, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
    this(channel, workflow, envelope, props, body, System.nanoTime());
  }
}
