package dev.baton.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An example worker in another language, run by {@code baton dev} as a child process with the environment a pod of its
 * WorkerService would get: every line it writes (stdout and stderr) goes to {@code baton dev}'s console behind
 * {@code [<prefix>] }; closing it sends SIGTERM, as Kubernetes stops a pod, and kills it if it has not exited in time.
 */
final class ChildWorker implements AutoCloseable {

  private final Process process;
  private final Thread output;
  private final Duration shutdown;

  private ChildWorker(Process process, Thread output, Duration shutdown) {
    this.process = process;
    this.output = output;
    this.shutdown = shutdown;
  }

  /**
   * @param environment the pod's variables; {@code baton dev}'s own {@code BATON_*} variables (its API token among
   *     them) are not passed on, the rest of its environment is (PATH, HOME: what the interpreter needs)
   */
  static ChildWorker start(List<String> commandLine, Path directory, Map<String, String> environment, String prefix,
      PrintStream out, Duration shutdown) {
    ProcessBuilder pb = new ProcessBuilder(commandLine).directory(directory.toFile()).redirectErrorStream(true);
    pb.environment().keySet().removeIf(name -> name.startsWith("BATON_"));
    pb.environment().putAll(environment);
    Process process;
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + commandLine.get(0) + ": " + e.getMessage(), e);
    }
    Thread copier = new Thread(() -> copy(process, "[" + prefix + "] ", out), "baton-dev-worker-" + prefix);
    copier.setDaemon(true);
    copier.start();
    return new ChildWorker(process, copier, shutdown);
  }

  private static void copy(Process process, String prefix, PrintStream out) {
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        out.println(prefix + line);
      }
    } catch (IOException e) {
      // the process is gone: nothing more to copy
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGTERM, then SIGKILL if it has not exited within the shutdown time; its remaining output is printed. */
  @Override
  public void close() {
    process.toHandle().destroy(); // SIGTERM; Process.destroy() would also close its output before the last lines
    try {
      if (!process.waitFor(shutdown.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
      output.join(5_000); // its last lines, written as it stopped
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** Its exit code once it ended. */
  int exitValue() {
    return process.exitValue();
  }
}
