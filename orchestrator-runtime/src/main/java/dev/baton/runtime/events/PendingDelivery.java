package dev.baton.runtime.events;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Envelope;
import dev.baton.contract.Headers;

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

  /** The namespace the event names ({@code baton-namespace}), or "" when it names none: a metric label. */
  String namespaceLabel() {
    String namespace = props.getHeaders() == null ? null : Headers.text(props.getHeaders().get(Headers.NAMESPACE));
    return namespace == null ? "" : namespace;
  }
}
