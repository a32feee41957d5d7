package dev.baton.messaging;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ReturnCallback;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.AMQImpl;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Stand-ins for the amqp-client {@link Connection} and {@link Channel} interfaces, for the pure bookkeeping of the
 * publisher and the channel holder: they hand out publish sequence numbers like a channel in confirm mode, record
 * what is published, and let a test play the broker (confirms, returns, a channel error, a lost connection and its
 * automatic recovery). Everything the real broker does is covered by the integration tests.
 */
final class FakeChannels {

  /** A connection whose channels are {@link FakeChannel}s. */
  static final class FakeConnection implements InvocationHandler {
    final List<FakeChannel> opened = new CopyOnWriteArrayList<>();
    volatile boolean open = true;

    Connection proxy() {
      return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
          this);
    }

    FakeChannel last() {
      return opened.get(opened.size() - 1);
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) {
      return switch (method.getName()) {
        case "createChannel" -> {
          if (!open) {
            throw new com.rabbitmq.client.AlreadyClosedException(
                new ShutdownSignalException(true, false, null, this));
          }
          FakeChannel c = new FakeChannel(opened.size() + 1);
          opened.add(c);
          yield c.proxy;
        }
        case "isOpen" -> open;
        case "toString" -> "FakeConnection";
        case "hashCode" -> System.identityHashCode(this);
        case "equals" -> proxy == args[0];
        default -> throw new UnsupportedOperationException(method.getName());
      };
    }
  }

  /** One channel; {@code publishes} lists "exchange key #seq". */
  static final class FakeChannel implements InvocationHandler {
    final int number;
    final Channel proxy;
    final List<String> publishes = new CopyOnWriteArrayList<>();
    final List<ConfirmListener> confirmListeners = new ArrayList<>();
    final List<Object> returnListeners = new ArrayList<>();
    final List<ShutdownListener> shutdownListeners = new ArrayList<>();
    final List<RecoveryListener> recoveryListeners = new ArrayList<>();
    volatile long nextSeq;
    volatile ShutdownSignalException closeReason;
    volatile boolean aborted;
    volatile RuntimeException failNextPublish;

    FakeChannel(int number) {
      this.number = number;
      this.proxy = (Channel) Proxy.newProxyInstance(Channel.class.getClassLoader(),
          new Class<?>[] {Channel.class, Recoverable.class}, this);
    }

    @Override
    public Object invoke(Object p, Method method, Object[] args) {
      return switch (method.getName()) {
        case "confirmSelect" -> {
          if (nextSeq == 0) {
            nextSeq = 1;
          }
          yield null;
        }
        case "getNextPublishSeqNo" -> nextSeq;
        case "basicPublish" -> {
          if (closeReason != null) {
            throw new com.rabbitmq.client.AlreadyClosedException(closeReason);
          }
          if (failNextPublish != null) {
            RuntimeException e = failNextPublish;
            failNextPublish = null;
            throw e;
          }
          publishes.add(args[0] + " " + args[1] + " #" + nextSeq);
          if (nextSeq > 0) {
            nextSeq++;
          }
          yield null;
        }
        case "addConfirmListener" -> add(confirmListeners, args[0]);
        case "addReturnListener" -> add(returnListeners, args[0]);
        case "addShutdownListener" -> add(shutdownListeners, args[0]);
        case "addRecoveryListener" -> add(recoveryListeners, args[0]);
        case "isOpen" -> closeReason == null;
        case "getCloseReason" -> closeReason;
        case "getChannelNumber" -> number;
        case "abort", "close" -> {
          aborted = method.getName().equals("abort");
          if (closeReason == null) {
            shutDown(new ShutdownSignalException(false, true, null, this));
          }
          yield null;
        }
        case "toString" -> "FakeChannel#" + number;
        case "hashCode" -> System.identityHashCode(this);
        case "equals" -> p == args[0];
        default -> throw new UnsupportedOperationException(method.getName());
      };
    }

    private static <T> Object add(List<T> list, Object listener) {
      @SuppressWarnings("unchecked")
      T l = (T) listener;
      synchronized (list) {
        list.add(l);
      }
      return null;
    }

    void ack(long seq, boolean multiple) throws Exception {
      for (ConfirmListener l : List.copyOf(confirmListeners)) {
        l.handleAck(seq, multiple);
      }
    }

    void nack(long seq, boolean multiple) throws Exception {
      for (ConfirmListener l : List.copyOf(confirmListeners)) {
        l.handleNack(seq, multiple);
      }
    }

    void returnMessage(String exchange, String key, String messageId) {
      AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId(messageId).build();
      for (Object l : List.copyOf(returnListeners)) {
        if (l instanceof ReturnCallback callback) {
          callback.handle(new Return(312, "NO_ROUTE", exchange, key, props, new byte[0]));
        } else {
          try {
            ((ReturnListener) l).handleReturn(312, "NO_ROUTE", exchange, key, props, new byte[0]);
          } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
          }
        }
      }
    }

    /** The broker closes the channel with a channel error ({@code 406 PRECONDITION_FAILED} and the like). */
    void channelError(int code, String text) {
      shutDown(new ShutdownSignalException(false, false,
          new AMQImpl.Channel.Close(code, text, 60, 40), this));
    }

    /** The connection fails: the channel shuts down with a hard error; automatic recovery may reopen it. */
    void connectionLost() {
      shutDown(new ShutdownSignalException(true, false,
          new AMQImpl.Connection.Close(320, "CONNECTION_FORCED", 0, 0), this));
    }

    /** Automatic recovery reopens the channel: a fresh delegate whose publish sequence starts at 1 again. */
    void recover() {
      nextSeq = 0;
      closeReason = null;
      for (RecoveryListener l : List.copyOf(recoveryListeners)) {
        l.handleRecoveryStarted((Recoverable) proxy);
      }
      nextSeq = 1; // confirm mode restored
      for (RecoveryListener l : List.copyOf(recoveryListeners)) {
        l.handleRecovery((Recoverable) proxy);
      }
    }

    private void shutDown(ShutdownSignalException why) {
      closeReason = why;
      for (ShutdownListener l : List.copyOf(shutdownListeners)) {
        l.shutdownCompleted(why);
      }
    }
  }

  private FakeChannels() {}
}
