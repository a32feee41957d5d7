package dev.baton.conformance;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A conformance worker running as a process of its own: its output (stdout and stderr) copied to a file, ready once
 * it printed {@code READY} on a line of its own.
 */
final class WorkerProcess implements AutoCloseable {

  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration STOP = Duration.ofSeconds(30);

  private final Process process;
  private final Path output;
  private final AtomicBoolean ready = new AtomicBoolean();
  private Integer exitCode;

  private WorkerProcess(Process process, Path output) {
    this.process = process;
    this.output = output;
  }

  /** Starts {@code command} in {@code directory} with {@code environment} added, and waits for READY. */
  static WorkerProcess start(List<String> command, Path directory, Map<String, String> environment, Path output)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
    // a pod's variables only: none of the suite's own BATON_* settings leak into the worker
    pb.environment().keySet().removeIf(name -> name.startsWith("BATON_"));
    pb.environment().putAll(environment);
    WorkerProcess worker = new WorkerProcess(pb.start(), output);
    worker.copyOutput();
    await("the worker to print READY (its output: " + output.toAbsolutePath() + ")")
        .atMost(START).pollInterval(Duration.ofMillis(100))
        .until(() -> {
          if (!worker.process.isAlive() && !worker.ready.get()) {
            throw new IllegalStateException("the worker exited with " + worker.process.exitValue()
                + " before READY; its output: " + output.toAbsolutePath() + "\n" + worker.tail());
          }
          return worker.ready.get();
        });
    return worker;
  }

  private void copyOutput() throws IOException {
    Files.createDirectories(output.getParent());
    PrintWriter file = new PrintWriter(Files.newBufferedWriter(output, StandardCharsets.UTF_8), true);
    Thread copier = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          file.println(line);
          if (line.strip().equals("READY")) {
            ready.set(true);
          }
        }
      } catch (IOException e) {
        file.println("[suite] output copy ended: " + e);
      } finally {
        file.close();
      }
    }, "conformance-worker-output");
    copier.setDaemon(true);
    copier.start();
  }

  /** The last lines of its output, for a failure message. */
  String tail() {
    try {
      List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Its exit code after {@link #close()} (SIGTERM, then at most 30 s), or null if it had to be killed. */
  Integer exitCode() {
    return exitCode;
  }

  /** SIGTERM, as Kubernetes stops a pod; SIGKILL if it has not exited 30 s later. */
  @Override
  public void close() {
    process.toHandle().destroy(); // SIGTERM; Process.destroy() would also close its output before the last lines
    try {
      if (process.waitFor(STOP.toMillis(), TimeUnit.MILLISECONDS)) {
        exitCode = process.exitValue();
      } else {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
