package dev.baton.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What {@code baton dev --workers <language>} needs on this machine to run the order saga's example workers: their
 * four programs, and a runtime that loads them (Python: {@code python3} with pika and the SDK; TypeScript: the SDK and
 * the examples built). A test that runs them fails at once with what to install or build, never waits for workers
 * that cannot start, and is never skipped.
 */
final class ExampleWorkerPrerequisites {

  /** The order saga's example workers, as its WorkerServices' labels name them. */
  static final List<String> SAGA_WORKERS = List.of("inventory", "payment", "shipping", "sms");

  private static final String PYTHON_NEEDS = "python3 with pika first on the PATH (Debian's: apt-get install"
      + " python3-pika, with /usr/bin/python3 ahead of pyenv's)";
  private static final String TYPESCRIPT_NEEDS = "node, the TypeScript SDK and example workers built: (cd"
      + " sdk/typescript && npm ci && npm run build) && (cd examples-workers/typescript && npm ci && npm run build)";

  private ExampleWorkerPrerequisites() {}

  /** Returns when {@code language}'s workers can run from {@code repository}; otherwise fails saying what lacks. */
  static void require(WorkerLanguage language, Path repository) {
    if (language == WorkerLanguage.JAVA) {
      return; // in the test's own process
    }
    String needs = language == WorkerLanguage.PYTHON ? PYTHON_NEEDS : TYPESCRIPT_NEEDS;
    List<WorkerLanguage.ChildCommand> programs = new ArrayList<>();
    for (String worker : SAGA_WORKERS) {
      WorkerLanguage.ChildCommand command = language.command(repository, worker).orElseThrow();
      command.missing().ifPresent(missing -> fail(language, needs, missing));
      programs.add(command);
    }
    WorkerLanguage.ChildCommand first = programs.get(0);
    // Loading one program (not running it) proves the interpreter finds its libraries: pika and the SDK for Python,
    // the built SDK and amqplib for TypeScript.
    List<String> load = language == WorkerLanguage.PYTHON
        ? List.of("python3", "-c", "import pika, baton_worker")
        : List.of("node", "--input-type=module", "-e", "await import(process.argv[1])",
            first.program().toUri().toString());
    probe(language, needs, load, first);
  }

  private static void probe(WorkerLanguage language, String needs, List<String> commandLine,
      WorkerLanguage.ChildCommand program) {
    try {
      Path output = Files.createTempFile("baton-worker-probe", ".log");
      ProcessBuilder pb = new ProcessBuilder(commandLine).redirectErrorStream(true).redirectOutput(output.toFile());
      pb.environment().putAll(program.environment()); // as the child worker gets it (PYTHONPATH)
      Process p = pb.start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        fail(language, needs, String.join(" ", commandLine) + " did not end within 30s");
      }
      String said = Files.readString(output, StandardCharsets.UTF_8).strip();
      Files.delete(output);
      if (p.exitValue() != 0) {
        // the interpreter's own error line first (ModuleNotFoundError: ..., Error [ERR_MODULE_NOT_FOUND]: ...)
        String error = said.lines().filter(l -> l.matches("\\w*Error\\b.*")).findFirst()
            .orElse(said.lines().findFirst().orElse("no output"));
        fail(language, needs, String.join(" ", commandLine) + " exited " + p.exitValue() + ": " + error
            + "\n" + (said.length() > 1500 ? said.substring(0, 1500) + "…" : said));
      }
    } catch (IOException e) {
      fail(language, needs, "cannot run " + commandLine.get(0) + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail(language, needs, "interrupted");
    }
  }

  private static void fail(WorkerLanguage language, String needs, String why) {
    throw new AssertionError("--workers " + language + " cannot run the order saga's example workers here, it needs "
        + needs + ": " + why);
  }
}
