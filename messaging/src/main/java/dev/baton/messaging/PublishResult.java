package dev.baton.messaging;

import java.util.Objects;

/**
 * What became of one published message.
 *
 * @param failure why it failed, for {@link Status#FAILED} only (null otherwise)
 * @param detail the broker's reply text or the error, for logs and {@code last_error} columns; empty when confirmed
 */
public record PublishResult(Status status, Failure failure, String detail) {

  public enum Status {
    /** The broker took responsibility for the message (routed, and persisted where the queue is durable). */
    CONFIRMED,
    /** Published {@code mandatory} and returned: no queue is bound for its routing key. */
    UNROUTABLE,
    /** The broker refused it (e.g. {@code x-overflow: reject-publish} on a full queue, an internal error). */
    NACKED,
    /** No confirm: see {@link Failure}. The message may or may not have reached a queue. */
    FAILED
  }

  public enum Failure {
    /**
     * The broker closed the channel with a channel error (a message over {@code max_message_size}, a publish to an
     * exchange that was deleted or is not writable...). With several messages in flight, any of them may have caused
     * it: published alone, a message that fails this way is the cause.
     */
    CHANNEL_ERROR,
    /** The connection failed or is recovering: nothing is known about the message, nor is it its fault. */
    CONNECTION,
    /** No confirm within the publisher's confirm timeout (a broker under a resource alarm, a lost frame). */
    TIMEOUT,
    /** The client library refused to send it (e.g. a header value AMQP cannot carry): the message's own fault. */
    REJECTED_BY_CLIENT,
    /** The publisher was closed before the confirm arrived. */
    CLOSED
  }

  public PublishResult {
    Objects.requireNonNull(status, "status");
    if ((status == Status.FAILED) != (failure != null)) {
      throw new IllegalArgumentException("a failure kind goes with FAILED, and only with it");
    }
    detail = detail == null ? "" : detail;
  }

  static final PublishResult CONFIRMED = new PublishResult(Status.CONFIRMED, null, "");

  static PublishResult unroutable(int replyCode, String replyText) {
    return new PublishResult(Status.UNROUTABLE, null, replyCode + " " + replyText);
  }

  static PublishResult nacked() {
    return new PublishResult(Status.NACKED, null, "the broker refused the message (basic.nack)");
  }

  static PublishResult failed(Failure failure, String detail) {
    return new PublishResult(Status.FAILED, Objects.requireNonNull(failure, "failure"), detail);
  }

  public boolean confirmed() {
    return status == Status.CONFIRMED;
  }

  /**
   * Whether the failure says something about this message rather than about the broker connection: a nack, a
   * return, a refusal by the client, or a channel error (see {@link Failure#CHANNEL_ERROR} for when that one is the
   * message's fault).
   */
  public boolean aboutTheMessage() {
    return status == Status.NACKED || status == Status.UNROUTABLE
        || failure == Failure.REJECTED_BY_CLIENT || failure == Failure.CHANNEL_ERROR;
  }

  @Override
  public String toString() {
    return switch (status) {
      case CONFIRMED -> "confirmed";
      case UNROUTABLE -> "returned unroutable (" + detail + ")";
      case NACKED -> "nacked";
      case FAILED -> "failed, " + failure.name().toLowerCase().replace('_', ' ') + ": " + detail;
    };
  }
}
