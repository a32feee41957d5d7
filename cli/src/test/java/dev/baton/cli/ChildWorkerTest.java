package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton dev --workers python|typescript}: the command line of each language's example worker, and a child
 * worker run from that table, with a stand-in for the example's program.
 */
class ChildWorkerTest {

  @TempDir
  Path root;

  @Test
  void eachLanguageRunsTheExampleWorkersProgramFromTheRepository() {
    WorkerLanguage.ChildCommand python = WorkerLanguage.PYTHON.command(root, "payment").orElseThrow();
    assertThat(python.commandLine()).containsExactly("python3",
        root.resolve("examples-workers/python/payment.py").toString());
    assertThat(python.environment()).containsEntry("PYTHONPATH", root.resolve("sdk/python").toString());
    assertThat(WorkerLanguage.TYPESCRIPT.command(root, "sms").orElseThrow().commandLine()).containsExactly("node",
        root.resolve("examples-workers/typescript/dist/sms.js").toString());
    assertThat(WorkerLanguage.JAVA.command(root, "payment")).as("Java runs in baton dev's process").isEmpty();
  }

  @Test
  void aMissingProgramIsNamed() {
    assertThat(WorkerLanguage.TYPESCRIPT.command(root, "shipping").orElseThrow().missing())
        .hasValue("there is no " + root.resolve("examples-workers/typescript/dist/shipping.js"));
  }

  @Test
  void aChildWorkerGetsThePodsEnvironmentItsOutputIsPrefixedAndSigtermStopsIt() throws Exception {
    Path program = root.resolve("examples-workers/python/payment.py");
    Files.createDirectories(program.getParent());
    Files.writeString(program, """
        import os, signal, sys, time
        def stop(*_):
            print("stopping")
            sys.exit(0)
        signal.signal(signal.SIGTERM, stop)
        print("consuming", os.environ["BATON_CONSUMER_PAY_QUEUE"], "sdk at", os.environ["PYTHONPATH"])
        while True:
            time.sleep(0.05)
        """);
    WorkerLanguage.ChildCommand command = WorkerLanguage.PYTHON.command(root, "payment").orElseThrow();
    assertThat(command.missing()).isEmpty();
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8);
    Map<String, String> env = new java.util.HashMap<>(command.environment());
    env.put("BATON_CONSUMER_PAY_QUEUE", "q.payment.pay");

    ChildWorker worker = ChildWorker.start(command.commandLine(), root, env, "python:payment", out,
        Duration.ofSeconds(5));
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(console.toString(StandardCharsets.UTF_8))
        .contains("[python:payment] consuming q.payment.pay sdk at " + root.resolve("sdk/python")));
    assertThat(worker.isAlive()).isTrue();

    worker.close();
    assertThat(worker.isAlive()).isFalse();
    assertThat(worker.exitValue()).as("a graceful stop on SIGTERM").isZero();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(console.toString(StandardCharsets.UTF_8))
        .contains("[python:payment] stopping"));
  }
}
