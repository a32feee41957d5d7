package dev.baton.testing;

import com.rabbitmq.client.Channel;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in for a consuming channel that records how deliveries are settled, for unit tests of settling rules
 * ("ack 7", "ack up to 9" for an ACK multiple, "nack 3 requeue", "nack 4 dead-letter"). It is open; anything else
 * throws. Everything the real broker does belongs in integration tests.
 */
public final class RecordingChannel {

  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final Channel proxy = (Channel) Proxy.newProxyInstance(Channel.class.getClassLoader(),
      new Class<?>[] {Channel.class}, (p, method, args) -> switch (method.getName()) {
        case "basicAck" -> {
          calls.add((Boolean.TRUE.equals(args[1]) ? "ack up to " : "ack ") + args[0]);
          yield null;
        }
        case "basicNack" -> {
          calls.add("nack " + args[0] + (Boolean.TRUE.equals(args[2]) ? " requeue" : " dead-letter"));
          yield null;
        }
        case "isOpen" -> true;
        case "hashCode" -> System.identityHashCode(p);
        case "equals" -> p == args[0];
        case "toString" -> "RecordingChannel";
        default -> throw new UnsupportedOperationException(method.getName());
      });

  public Channel channel() {
    return proxy;
  }

  /** What was sent so far, in order. */
  public List<String> calls() {
    return calls;
  }
}
