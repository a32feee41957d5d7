package dev.baton.runtime.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The node-wide settings of the local RabbitMQ (3.10, on 127.0.0.1) that a test changes for its duration through
 * {@code rabbitmqctl}, each change undone by closing what it returns: the old value is read first and put back.
 */
final class LocalBroker {

  private LocalBroker() {}

  /** A node setting changed for a while: closing it puts the old value back. */
  interface Change extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * {@code max_message_size} lowered (or raised) to {@code bytes}. The broker reads it when a channel opens: the
   * channels opened from now on have the new limit.
   */
  static Change maxMessageSize(long bytes) {
    String old = eval("application:get_env(rabbit, max_message_size).");
    eval("application:set_env(rabbit, max_message_size, " + bytes + ").");
    return () -> eval(old.startsWith("{ok,")
        ? "application:set_env(rabbit, max_message_size, " + old.substring(4, old.length() - 1) + ")."
        : "application:unset_env(rabbit, max_message_size).");
  }

  /**
   * A memory alarm, as when the node passes its memory watermark: the watermark is set below what the node uses, so
   * the broker blocks every connection that publishes; closing it puts the old watermark back and the alarm clears.
   */
  static Change memoryAlarm() {
    String old = eval("vm_memory_monitor:get_vm_memory_high_watermark().");
    eval("vm_memory_monitor:set_vm_memory_high_watermark(0.0000001).");
    return () -> eval("vm_memory_monitor:set_vm_memory_high_watermark(" + old + ").");
  }

  /** Whether the node has a memory alarm raised. */
  static boolean memoryAlarmed() {
    return eval("rabbit_alarm:get_alarms().").contains("memory");
  }

  /**
   * Whether the broker blocks a connection of the vhost: one that published while an alarm was raised (a connection
   * that has not published since is only "blocking").
   */
  static boolean blocksAConnectionOf(String vhost) {
    return ctl("-q", "list_connections", "vhost", "state").lines()
        .anyMatch(line -> line.equals(vhost + "\tblocked"));
  }

  /** {@code rabbitmqctl eval}: the term it prints, trimmed. */
  static String eval(String expression) {
    return ctl("eval", expression);
  }

  private static String ctl(String... args) {
    String ctl = Files.isExecutable(Path.of("/usr/sbin/rabbitmqctl")) ? "/usr/sbin/rabbitmqctl" : "rabbitmqctl";
    List<String> command = new java.util.ArrayList<>(List.of(ctl));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("rabbitmqctl did not finish: " + command);
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (p.exitValue() != 0) {
        throw new IllegalStateException(command + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("rabbitmqctl cannot be run", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
