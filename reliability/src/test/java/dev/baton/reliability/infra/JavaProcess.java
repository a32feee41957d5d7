package dev.baton.reliability.infra;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Java main class in a JVM of its own, with this JVM's classpath, configured by environment variables, its output
 * in a log file; killed with SIGKILL ({@link #kill()}) or stopped with SIGTERM ({@link #stop()}).
 */
public final class JavaProcess implements AutoCloseable {

  private final Process process;
  private final Path log;

  private JavaProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  public static JavaProcess start(String mainClass, Map<String, String> env, List<String> jvmArgs, Path log) {
    return start(mainClass, List.of(), env, jvmArgs, log);
  }

  /** As {@link #start(String, Map, List, Path)}, with arguments for the main class. */
  public static JavaProcess start(String mainClass, List<String> args, Map<String, String> env, List<String> jvmArgs,
      Path log) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC"));
    cmd.addAll(jvmArgs);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    try {
      return new JavaProcess(pb.start(), log);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + mainClass, e);
    }
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public Path log() {
    return log;
  }

  /** SIGKILL: no shutdown hook, no graceful close, nothing flushed. */
  public void kill() {
    process.destroyForcibly();
    await(30);
  }

  /** SIGTERM, then SIGKILL after 30 s. */
  public void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    if (!await(30)) {
      kill();
    }
  }

  private boolean await(int seconds) {
    try {
      return process.waitFor(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() {
    stop();
  }
}
