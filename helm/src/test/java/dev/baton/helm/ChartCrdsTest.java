package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The chart ships the CRDs of {@code crds/} byte for byte. When a CRD changes, refresh the chart's copy from the
 * repository root with {@code cp crds/*.yml helm/baton/crds/}.
 */
class ChartCrdsTest {

  private static final String REFRESH = "refresh the chart's CRDs from the repository root: cp crds/*.yml helm/baton/crds/";

  @Test
  void sameFilesAsCrdsDirectory() throws IOException {
    assertThat(names(Chart.dir().resolve("crds"))).as(REFRESH)
        .isNotEmpty()
        .containsExactlyElementsOf(names(Chart.repoRoot().resolve("crds")));
  }

  @Test
  void sameBytesAsCrdsDirectory() throws IOException {
    for (String name : names(Chart.repoRoot().resolve("crds"))) {
      byte[] committed = Files.readAllBytes(Chart.repoRoot().resolve("crds").resolve(name));
      byte[] inChart = Files.readAllBytes(Chart.dir().resolve("crds").resolve(name));
      assertThat(inChart).as("helm/baton/crds/%s differs from crds/%s; %s", name, name, REFRESH).isEqualTo(committed);
    }
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yml") || n.endsWith(".yaml"))
          .sorted().toList();
    }
  }
}
