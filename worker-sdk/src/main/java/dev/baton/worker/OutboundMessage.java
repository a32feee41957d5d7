package dev.baton.worker;

import com.rabbitmq.client.AMQP;

/**
 * A message the SDK will publish with a confirm before it acks the delivery that caused it.
 *
 * @param mandatory true for retries and dead letters: the broker returns them if no queue is bound for the key
 *     (a topology that drifted from the plan), and the delivery is then rejected instead of the message vanishing
 * @param what a few words for logs, never the body
 */
record OutboundMessage(String exchange, String routingKey, boolean mandatory, AMQP.BasicProperties properties,
    byte[] body, String what) {}
