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
      TemplateCommand command = new Helm(dir()).template().withName(RELEASE).withNamespace(NAMESPACE);
      return Rendered.parse((v.file() == null ? command : command.withValuesFile(v.file())).call());
    });
  }

  /**
   * As {@link #template(ValueSet)}, with more values on top (not cached): dotted keys ({@code operator.replicas}),
   * values of any YAML type, lists included (which helm-java's {@code set} would pass as strings).
   */
  static Rendered template(ValueSet values, Map<String, Object> more) {
    TemplateCommand command = new Helm(dir()).template().withName(RELEASE).withNamespace(NAMESPACE);
    JsonNode merged = values.file() == null ? YAML.createObjectNode() : read(values.file());
    for (Map.Entry<String, Object> value : more.entrySet()) {
      Object nested = value.getValue();
      String[] path = value.getKey().split("\\.");
      for (int i = path.length - 1; i >= 0; i--) {
        nested = Map.of(path[i], nested);
      }
      merged = merge(merged, YAML.valueToTree(nested));
    }
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

  private static Path copyWithValues(ValueSet values, Path scratch) {
    Path copy = scratch.resolve("baton");
    try (Stream<Path> files = Files.walk(dir())) {
      for (Path source : (Iterable<Path>) files::iterator) {
        Path target = copy.resolve(dir().relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target);
        }
      }
      JsonNode merged = merge(read(dir().resolve("values.yaml")), read(values.file()));
      YAML.writeValue(copy.resolve("values.yaml").toFile(), merged);
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
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
