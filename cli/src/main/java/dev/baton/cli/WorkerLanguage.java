package dev.baton.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * In which language {@code baton dev} runs the example workers ({@code --workers}): Java in its own process, as it
 * always did; Python and TypeScript as child processes, one program per example worker, from the table below (paths
 * from the repository's root, {@code BATON_HOME}).
 */
enum WorkerLanguage {

  JAVA(null, null),
  /** {@code python3 examples-workers/python/<worker>.py}, the Python SDK ({@code sdk/python}) on its path. */
  PYTHON("python3", "examples-workers/python/%s.py") {
    @Override
    Map<String, String> environment(Path root) {
      // unbuffered: the output reaches baton dev's console line by line
      return Map.of("PYTHONPATH", root.resolve("sdk/python").toString(), "PYTHONUNBUFFERED", "1");
    }
  },
  /**
   * {@code node examples-workers/typescript/dist/<worker>.js}, built from {@code src/<worker>.ts} by {@code npm ci &&
   * npm run build} in {@code examples-workers/typescript}.
   */
  TYPESCRIPT("node", "examples-workers/typescript/dist/%s.js");

  private final String interpreter;
  private final String program;

  WorkerLanguage(String interpreter, String program) {
    this.interpreter = interpreter;
    this.program = program;
  }

  /** How a child process of this language is started; empty for Java, which runs in {@code baton dev}'s process. */
  Optional<ChildCommand> command(Path root, String worker) {
    if (interpreter == null) {
      return Optional.empty();
    }
    Path file = root.resolve(program.formatted(worker));
    return Optional.of(new ChildCommand(List.of(interpreter, file.toString()), file, environment(root)));
  }

  /** What the language's runtime needs besides the worker's own variables. */
  Map<String, String> environment(Path root) {
    return Map.of();
  }

  /** A child worker's command line, the program it runs (which must exist) and the variables it needs besides. */
  record ChildCommand(List<String> commandLine, Path program, Map<String, String> environment) {

    /** Why it cannot start, or empty. */
    Optional<String> missing() {
      return Files.isRegularFile(program) ? Optional.empty() : Optional.of("there is no " + program);
    }
  }

  /** {@code java}, {@code python} or {@code typescript}, as {@code --workers} takes it. */
  static final class Names implements picocli.CommandLine.ITypeConverter<WorkerLanguage> {
    @Override
    public WorkerLanguage convert(String value) {
      for (WorkerLanguage l : values()) {
        if (l.name().equalsIgnoreCase(value.trim())) {
          return l;
        }
      }
      throw new picocli.CommandLine.TypeConversionException("expected java, python or typescript, got '" + value
          + "'");
    }
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
