package dev.baton.operator.broker;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.PossibleAuthenticationFailureException;
import com.rabbitmq.client.ShutdownSignalException;
import dev.baton.contract.TlsTrust;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One AMQP 0-9-1 connection of the operator's administrator to its vhost, and a few channels on it that reconciler
 * threads borrow one at a time: declarations are one round trip each on a connection that stays open, where the
 * management API serves each through an HTTP request of its own (and answers 502 when thousands come at once).
 *
 * <p>A broker that refuses a request (PRECONDITION_FAILED, NOT_FOUND, ACCESS_REFUSED) closes the channel it came on:
 * that channel is dropped and the next borrower gets a new one. A lost connection is opened again on the next request,
 * so an outage ends by itself; no automatic recovery (it would replay declarations the snapshot never heard of).
 */
final class ChannelPool implements AutoCloseable {

  /** Requests in flight at once: the broker, not the channel count, bounds declarations per second. */
  static final int CHANNELS = 16;
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);

  /** A request on a channel, as the amqp-client does it. */
  interface Request<T> {
    T on(Channel channel) throws IOException;
  }

  private final ConnectionFactory factory;
  private final String address;
  /** Fair: a pass waiting for a channel is not overtaken by the passes that keep coming back for the next one. */
  private final Semaphore permits = new Semaphore(CHANNELS, true);
  private final BlockingQueue<Channel> idle = new LinkedBlockingQueue<>();
  private Connection connection; // guarded by this
  private volatile boolean closed;

  private ChannelPool(ConnectionFactory factory, String address) {
    this.factory = factory;
    this.address = address;
  }

  /**
   * @param uri {@code amqp://host:port} or {@code amqps://host:port} (no credentials, no vhost: those come apart)
   * @param caFile PEM file of the CA to trust for amqps, or null: the JVM's trust store
   */
  static ChannelPool to(URI uri, String username, String password, String vhost, String caFile) {
    ConnectionFactory factory = new ConnectionFactory();
    boolean tls = "amqps".equals(uri.getScheme());
    factory.setHost(uri.getHost());
    factory.setPort(uri.getPort() > 0 ? uri.getPort() : tls ? 5671 : 5672);
    factory.setUsername(username);
    factory.setPassword(password);
    factory.setVirtualHost(vhost);
    factory.setConnectionTimeout((int) CONNECT_TIMEOUT.toMillis());
    factory.setHandshakeTimeout((int) CONNECT_TIMEOUT.toMillis());
    factory.setChannelRpcTimeout((int) REQUEST_TIMEOUT.toMillis());
    factory.setRequestedHeartbeat(30);
    factory.setAutomaticRecoveryEnabled(false);
    if (tls) {
      factory.useSslProtocol(TlsTrust.context(caFile)); // null: the JVM's trust store
      factory.enableHostnameVerification();
    }
    return new ChannelPool(factory, uri.getScheme() + "://" + factory.getHost() + ":" + factory.getPort());
  }

  /** Where it connects, for messages (no credentials). */
  String address() {
    return address;
  }

  /**
   * Runs one request on a borrowed channel.
   *
   * @param what what is done, for the error ("declaring queue q.a.b")
   * @param refusals the refusals that are an answer rather than an error (a deletion's NOT_FOUND: already gone)
   * @throws BrokerException UNAVAILABLE when the broker cannot be reached, REJECTED when it refused
   */
  <T> T run(String what, Request<T> request, Refusals<T> refusals) {
    Channel channel = borrow(what);
    boolean reusable = false;
    try {
      T result = request.on(channel);
      reusable = true;
      return result;
    } catch (IOException | ShutdownSignalException e) {
      ShutdownSignalException signal = signalOf(e);
      if (signal != null && !signal.isHardError() && signal.getReason() instanceof AMQP.Channel.Close close) {
        T answer = refusals.answer(close.getReplyCode());
        if (answer != null) {
          return answer;
        }
        throw new BrokerException(BrokerException.Failure.REJECTED,
            what + " was refused by RabbitMQ: " + close.getReplyText(), e);
      }
      // A request that timed out leaves its channel behind, not the connection the other channels share.
      if (!channel.getConnection().isOpen()) {
        dropConnection();
      }
      throw unavailable(what, e);
    } finally {
      giveBack(channel, reusable);
    }
  }

  /** How a request reads the broker's refusals: a reply code it takes as an answer, or null for an error. */
  interface Refusals<T> {
    T answer(int replyCode);
  }

  private Channel borrow(String what) {
    try {
      if (!permits.tryAcquire(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new BrokerException(BrokerException.Failure.UNAVAILABLE,
            what + " failed: no AMQP channel to RabbitMQ at " + address + " came free within " + REQUEST_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrokerException(BrokerException.Failure.UNAVAILABLE, what + " was interrupted", e);
    }
    try {
      Channel channel;
      while ((channel = idle.poll()) != null) {
        if (channel.isOpen()) {
          return channel;
        }
      }
      return connection(what).createChannel();
    } catch (IOException | RuntimeException e) {
      permits.release();
      if (e instanceof BrokerException b) {
        throw b;
      }
      dropConnection();
      throw unavailable(what, e);
    }
  }

  private void giveBack(Channel channel, boolean reusable) {
    try {
      if (reusable && channel.isOpen() && !closed) {
        idle.add(channel);
      } else if (channel.isOpen()) {
        channel.abort();
      }
    } catch (IOException | RuntimeException e) {
      // a channel that cannot even be aborted is gone with its connection
    } finally {
      permits.release();
    }
  }

  private synchronized Connection connection(String what) {
    if (closed) {
      throw new BrokerException(BrokerException.Failure.UNAVAILABLE, what + " failed: the operator is stopping");
    }
    if (connection != null && connection.isOpen()) {
      return connection;
    }
    idle.clear(); // channels of a closed connection
    try {
      connection = factory.newConnection("baton-operator");
      return connection;
    } catch (PossibleAuthenticationFailureException e) {
      throw new BrokerException(BrokerException.Failure.REJECTED, what + " failed: RabbitMQ at " + address
          + " refused the operator's broker credentials over AMQP", e);
    } catch (IOException | TimeoutException e) {
      ShutdownSignalException signal = signalOf(e);
      if (signal != null && signal.getReason() instanceof AMQP.Connection.Close close
          && close.getReplyCode() == AMQP.NOT_ALLOWED) {
        throw new BrokerException(BrokerException.Failure.REJECTED, what + " failed: RabbitMQ at " + address
            + " does not let the operator's user into vhost '" + factory.getVirtualHost() + "' (" + close.getReplyText()
            + ")", e);
      }
      throw unavailable(what, e);
    }
  }

  private synchronized void dropConnection() {
    Connection c = connection;
    connection = null;
    idle.clear();
    if (c != null) {
      c.abort((int) CONNECT_TIMEOUT.toMillis());
    }
  }

  private BrokerException unavailable(String what, Exception e) {
    Throwable cause = e.getCause() != null && e.getMessage() == null ? e.getCause() : e;
    String detail = cause.getMessage() == null ? cause.getClass().getSimpleName()
        : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    return new BrokerException(BrokerException.Failure.UNAVAILABLE,
        what + " failed: cannot reach RabbitMQ over AMQP at " + address + " (" + detail + ")", e);
  }

  private static ShutdownSignalException signalOf(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ShutdownSignalException s) {
        return s;
      }
    }
    return null;
  }

  @Override
  public void close() {
    closed = true;
    dropConnection();
  }
}
