package dev.baton.helm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/** The chart in {@code helm/baton}, rendered and linted by the real helm (helm-java bundles it as a library). */
final class Chart {

  static final String RELEASE = "baton";
  static final String NAMESPACE = "baton-system";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  /** Rendering takes a fraction of a second; most tests read the same few renderings. */
  private static final Map<ValueSet, Rendered> RENDERED = new ConcurrentHashMap<>();

  private Chart() {}

  /** The repository root: the build passes it (baton.repo.root); from an IDE the working directory is helm/. */
  static Path repoRoot() {
    String root = System.getProperty("baton.repo.root");
    Path path = root != null && !root.isBlank() ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
    if (!Files.isDirectory(path.resolve("helm/baton"))) {
      throw new IllegalStateException("cannot find helm/baton under " + path + " (set -Dbaton.repo.root)");
    }
    return path;
  }

  static Path dir() {
    return repoRoot().resolve("helm/baton");
  }

  /** {@code helm template baton helm/baton -n baton-system [-f values]}, parsed. */
  static Rendered template(ValueSet values) {
    return RENDERED.computeIfAbsent(values, v -> {
      TemplateCommand command = new Helm(renderable()).template().withName(RELEASE).withNamespace(NAMESPACE);
      return Rendered.parse((v.file() == null ? command : command.withValuesFile(v.file())).call());
    });
  }

  /**
   * As {@link #template(ValueSet)}, with more values on top (not cached): dotted keys ({@code operator.replicas}),
   * values of any YAML type, lists included (which helm-java's {@code set} would pass as strings).
   */
  static Rendered template(ValueSet values, Map<String, Object> more) {
    TemplateCommand command = new Helm(renderable()).template().withName(RELEASE).withNamespace(NAMESPACE);
    JsonNode merged = withMore(values.file() == null ? YAML.createObjectNode() : read(values.file()), more);
    try {
      Path file = Files.createTempFile("baton-values-", ".yaml");
      try {
        YAML.writeValue(file.toFile(), merged);
        return Rendered.parse(command.withValuesFile(file).call());
      } finally {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The chart to run {@code helm template} and {@code helm install --dry-run=client} (ChartInstallTest) on: a copy
   * whose only change is the one {@link #copyChart} makes to Chart.yaml's kubeVersion, made once per test run and
   * deleted when the JVM exits. (helm-java 0.0.15's template would let a {@code lookup} ask a cluster; the chart has
   * none, GitOpsRenderTest sees to it.)
   */
  static Path renderable() {
    return Renderable.COPY;
  }

  /** Made at the first use (the JVM's lazy class initialisation, once, whatever the threads). */
  private static final class Renderable {
    static final Path COPY = copy();

    private static Path copy() {
      try {
        Path scratch = Files.createTempDirectory("baton-chart-");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(scratch)));
        return copyChart(scratch.resolve("baton"), true);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static JsonNode read(Path file) {
    try {
      return YAML.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@code helm lint --strict} with the value set. helm-java's lint takes no values, so the chart is linted as a
   * copy whose values.yaml is the chart's defaults with the value set merged in, as helm merges -f files.
   */
  static LintResult lint(ValueSet values, Path scratch) {
    Path chart = values.file() == null ? dir() : copyWithValues(values, scratch);
    return new Helm(chart).lint().strict().call();
  }

  /** {@code helm lint --strict} of the defaults with more values on top (dotted keys, any YAML type). */
  static LintResult lint(Map<String, Object> more, Path scratch) {
    return new Helm(copyWithValues(withMore(read(dir().resolve("values.yaml")), more), scratch)).lint().strict().call();
  }

  private static Path copyWithValues(ValueSet values, Path scratch) {
    return copyWithValues(merge(read(dir().resolve("values.yaml")), read(values.file())), scratch);
  }

  private static JsonNode withMore(JsonNode base, Map<String, Object> more) {
    JsonNode merged = base;
    for (Map.Entry<String, Object> value : more.entrySet()) {
      Object nested = value.getValue();
      String[] path = value.getKey().split("\\.");
      for (int i = path.length - 1; i >= 0; i--) {
        nested = Map.of(path[i], nested);
      }
      merged = merge(merged, YAML.valueToTree(nested));
    }
    return merged;
  }

  private static Path copyWithValues(JsonNode merged, Path scratch) {
    try {
      Path copy = copyChart(scratch.resolve("baton"), false);
      YAML.writeValue(copy.resolve("values.yaml").toFile(), merged);
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The chart's kubeVersion constraint; helm refuses to render for an older Kubernetes. */
  static final String KUBE_VERSION = ">=1.27.0-0";

  /**
   * A copy of the chart in {@code copy}. For rendering
   * with helm-java ({@code forRendering}), Chart.yaml's kubeVersion admits Kubernetes 1.20 too: helm-java 0.0.15's
   * bundled helm renders for Kubernetes v1.20.0 when no cluster is asked (helm itself for its client-go version) and
   * offers no --kube-version. ValuesSchemaTest checks that the chart as it is refuses that version.
   */
  private static Path copyChart(Path copy, boolean forRendering) throws IOException {
    try (Stream<Path> files = Files.walk(dir())) {
      for (Path source : (Iterable<Path>) files::iterator) {
        Path target = copy.resolve(dir().relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else if (forRendering && source.equals(dir().resolve("Chart.yaml"))) {
          String chart = Files.readString(source);
          if (!chart.contains("kubeVersion: \"" + KUBE_VERSION + "\"")) {
            throw new IllegalStateException("Chart.yaml no longer says kubeVersion: \"" + KUBE_VERSION + "\"");
          }
          Files.writeString(target, chart.replace(KUBE_VERSION, ">=1.20.0-0"));
        } else {
          Files.copy(source, target);
        }
      }
    }
    return copy;
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A leftover temporary directory is harmless.
    }
  }

  /** Helm's rule for -f files: maps merge key by key, everything else (lists included) is replaced. */
  static JsonNode merge(JsonNode base, JsonNode overlay) {
    if (base == null || !base.isObject() || overlay == null || !overlay.isObject()) {
      return overlay;
    }
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    base.fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue()));
    overlay.fields().forEachRemaining(e -> fields.merge(e.getKey(), e.getValue(), Chart::merge));
    return YAML.valueToTree(fields);
  }
}
