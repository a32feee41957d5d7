package dev.baton.runtime.messaging;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Envelope;

/** A delivery waiting in a lane, with the channel it must be settled on. */
record PendingDelivery(Channel channel, String workflow, Envelope envelope, AMQP.BasicProperties props, byte[] body) {}
