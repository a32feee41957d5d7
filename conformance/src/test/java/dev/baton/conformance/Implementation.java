package dev.baton.conformance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A worker implementation under test and how its conformance worker is started, from the repository's root
 * (conformance/README.md, "Where each lives"). {@code -Dbaton.conformance.implementations=java,raw-amqp} picks some;
 * the default is all of them, so that CI fails, rather than skips, an implementation whose worker is missing.
 */
enum Implementation {

  JAVA("java") {
    @Override
    List<String> command(Path root) {
      return javaMain(JavaConformanceWorker.class.getName());
    }
  },

  RAW_AMQP("raw-amqp") {
    @Override
    List<String> command(Path root) {
      return javaMain("dev.baton.runtime.it.RawConformanceWorker");
    }
  },

  PYTHON("python") {
    @Override
    List<String> command(Path root) {
      return List.of("python3", "sdk/python/conformance/worker.py");
    }

    @Override
    Map<String, String> environment(Path root) {
      return Map.of("PYTHONPATH", root.resolve("sdk/python").toString(), "PYTHONUNBUFFERED", "1");
    }

    @Override
    Optional<String> missing(Path root) {
      return absent(root, "sdk/python/conformance/worker.py", "the Python SDK's conformance worker");
    }
  },

  TYPESCRIPT("typescript") {
    @Override
    List<String> command(Path root) {
      return List.of("node", "sdk/typescript/dist/conformance/worker.js");
    }

    @Override
    Optional<String> missing(Path root) {
      return absent(root, "sdk/typescript/src/conformance/worker.ts", "the TypeScript SDK's conformance worker")
          .or(() -> absent(root, "sdk/typescript/dist/conformance/worker.js",
              "the built TypeScript conformance worker (run `npm ci && npm run build` in sdk/typescript first)"));
    }
  };

  static final String PROPERTY = "baton.conformance.implementations";

  private final String id;

  Implementation(String id) {
    this.id = id;
  }

  String id() {
    return id;
  }

  /** The command line of the conformance worker, run in the repository's root. */
  abstract List<String> command(Path root);

  /** Variables the implementation's runtime needs besides the worker's own. */
  Map<String, String> environment(Path root) {
    return Map.of();
  }

  /** Why the worker cannot be started at all (its file is absent), or empty. */
  Optional<String> missing(Path root) {
    return Optional.empty();
  }

  /** The implementations {@value #PROPERTY} names (comma-separated ids), all of them without it. */
  static List<Implementation> selected() {
    String chosen = System.getProperty(PROPERTY, "").trim();
    if (chosen.isEmpty()) {
      return List.of(values());
    }
    return Arrays.stream(chosen.split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(Implementation::byId)
        .toList();
  }

  private static Implementation byId(String id) {
    return Arrays.stream(values()).filter(i -> i.id.equals(id.toLowerCase(Locale.ROOT))).findFirst()
        .orElseThrow(() -> new IllegalArgumentException(PROPERTY + ": no implementation '" + id + "' (there are "
            + Arrays.stream(values()).map(Implementation::id).toList() + ")"));
  }

  private static List<String> javaMain(String mainClass) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return List.of(java, "-Xmx128m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), mainClass);
  }

  private static Optional<String> absent(Path root, String file, String what) {
    return Files.isRegularFile(root.resolve(file)) ? Optional.empty()
        : Optional.of(what + " is missing: no " + file + " in " + root);
  }

  @Override
  public String toString() {
    return id;
  }
}
