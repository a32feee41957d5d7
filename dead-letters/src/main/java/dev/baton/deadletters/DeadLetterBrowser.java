package dev.baton.deadletters;

import com.rabbitmq.http.client.Client;
import com.rabbitmq.http.client.GetAckMode;
import com.rabbitmq.http.client.GetEncoding;
import com.rabbitmq.http.client.domain.InboundMessage;
import com.rabbitmq.http.client.domain.QueueInfo;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Reads the dead-letter queues of a vhost through the RabbitMQ management API: which there are, how many messages
 * each holds (the management statistics, a few seconds behind), and their messages, peeked and requeued. The one
 * place that does so for {@code baton dlq list} and the web UI. Failures are the management client's exceptions.
 */
public final class DeadLetterBrowser {

  /** Characters of a body shown at most. */
  static final int TRUNCATE = 50_000;

  /** One dead-letter queue and its message count. */
  public record QueueCount(DeadLetterQueue queue, long messages) {}

  private final Client client;
  private final String vhost;

  public DeadLetterBrowser(Client client, String vhost) {
    this.client = client;
    this.vhost = vhost;
  }

  public String vhost() {
    return vhost;
  }

  /**
   * The dead-letter queues, by name, optionally of one service.
   *
   * @return empty when the vhost does not exist
   */
  public Optional<List<QueueCount>> queues(String service) {
    List<QueueInfo> all = client.getQueues(vhost);
    if (all == null) {
      return Optional.empty();
    }
    return Optional.of(all.stream()
        .map(q -> DeadLetterQueue.parse(q.getName()).map(d -> new QueueCount(d, q.getTotalMessages())))
        .flatMap(Optional::stream)
        .filter(q -> service == null || q.queue().service().equals(service))
        .sorted(Comparator.comparing(q -> q.queue().name()))
        .toList());
  }

  /**
   * Up to {@code limit} messages of a dead-letter queue, oldest first, put back at once.
   *
   * @return empty when the queue does not exist
   */
  public Optional<List<ParkedMessage>> peek(DeadLetterQueue queue, int limit) {
    if (client.getQueue(vhost, queue.name()) == null) {
      return Optional.empty();
    }
    List<InboundMessage> peeked = client.get(vhost, queue.name(), limit, GetAckMode.REJECT_REQUEUE_TRUE,
        GetEncoding.AUTO, TRUNCATE);
    return Optional.of((peeked == null ? List.<InboundMessage>of() : peeked).stream().map(ParkedMessage::of).toList());
  }
}
