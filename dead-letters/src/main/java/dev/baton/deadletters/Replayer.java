package dev.baton.deadletters;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.Return;
import dev.baton.contract.Headers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Moves dead letters back, one at a time and never losing one: take it (unacknowledged), publish the copy
 * ({@code mandatory}, with publisher confirms), wait for the broker's confirm, and only then acknowledge the dead
 * letter. If anything fails half-way, the channel closes and the broker puts every unacknowledged dead letter back;
 * a crash between the confirm and the ack leaves the message in both places (a duplicate, which workers recognise by
 * its {@code message_id}), never in neither. Used by {@code baton dlq replay} and the web UI's replay buttons.
 */
public final class Replayer {

  private static final long CONFIRM_TIMEOUT_MS = 10_000;

  /** Which dead letters: the first {@code count} (null: all there are now), or the one with {@code messageId}. */
  public record Selection(Integer count, String messageId, boolean dryRun) {}

  /** One dead letter moved (or, in a dry run, that would be). */
  public record Moved(String messageId, String instance, String step, String routingKey, ReplayTarget target) {}

  public record Result(List<Moved> moved, long left) {}

  private Replayer() {}

  public static Result replay(Connection connection, DeadLetterQueue dlq, Selection selection)
      throws IOException, TimeoutException, InterruptedException {
    Channel channel = connection.createChannel();
    try {
      return replay(channel, dlq, selection);
    } finally {
      if (channel.isOpen()) {
        channel.close(); // unacknowledged deliveries (skipped, dry run, failed) go back to the queue
      }
    }
  }

  private static Result replay(Channel ch, DeadLetterQueue dlq, Selection selection)
      throws IOException, TimeoutException, InterruptedException {
    long available = ch.queueDeclarePassive(dlq.name()).getMessageCount();
    ch.confirmSelect();
    AtomicReference<Return> returned = new AtomicReference<>();
    ch.addReturnListener(returned::set);
    long wanted = selection.messageId() != null ? 1 : selection.count() == null ? available
        : Math.min(selection.count(), available);
    List<Moved> moved = new ArrayList<>();
    List<Long> putBack = new ArrayList<>();
    // look at no more than what was there at the start: a message that dies again meanwhile is not replayed twice
    for (long seen = 0; seen < available && moved.size() < wanted; seen++) {
      GetResponse r = ch.basicGet(dlq.name(), false);
      if (r == null) {
        break;
      }
      long tag = r.getEnvelope().getDeliveryTag();
      AMQP.BasicProperties props = r.getProps();
      if (selection.messageId() != null && !selection.messageId().equals(props.getMessageId())) {
        putBack.add(tag);
        continue;
      }
      Map<String, Object> headers = props.getHeaders() == null ? Map.of() : props.getHeaders();
      ReplayTarget target = ReplayTarget.of(dlq, headers);
      Moved m = new Moved(props.getMessageId(), text(headers.get(Headers.INSTANCE)), text(headers.get(Headers.STEP)),
          text(headers.get(Headers.ORIGINAL_ROUTING_KEY)), target);
      if (selection.dryRun()) {
        putBack.add(tag);
        moved.add(m);
        continue;
      }
      returned.set(null);
      ch.basicPublish(target.exchange(), target.routingKey(), true, ReplayTarget.replayProperties(props), r.getBody());
      ch.waitForConfirmsOrDie(CONFIRM_TIMEOUT_MS); // a nack or a timeout closes the channel: the dead letter stays
      if (returned.get() != null) {
        throw new UnroutableReplayException("message " + props.getMessageId() + " could not be routed by "
            + target.describe() + " (" + returned.get().getReplyText() + "): does that queue exist? It stays in "
            + dlq.name() + (moved.isEmpty() ? "" : "; " + moved.size() + " replayed before it"));
      }
      ch.basicAck(tag, false);
      moved.add(m);
    }
    for (long tag : putBack) {
      ch.basicNack(tag, false, true);
    }
    return new Result(moved, ch.queueDeclarePassive(dlq.name()).getMessageCount());
  }

  /** A dead letter the broker could not route back (its queue is gone): it stays where it was. */
  public static final class UnroutableReplayException extends IOException {
    UnroutableReplayException(String message) {
      super(message);
    }
  }

  private static String text(Object v) {
    return v == null ? "" : v.toString();
  }
}
