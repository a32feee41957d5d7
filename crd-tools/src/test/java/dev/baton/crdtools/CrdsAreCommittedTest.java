package dev.baton.crdtools;

import dev.baton.api.crd.CommittedCrds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The CRDs generated from the model at build time must be the ones committed in crds/ (and shipped in Helm). */
class CrdsAreCommittedTest {

  @Test
  void committedCrdsMatchTheModel() throws IOException {
    Path generated = Files.createTempDirectory("crds");
    CrdGeneration.generate(generated);
    Path committed = Path.of("..", "crds").toAbsolutePath().normalize();

    try (Stream<Path> files = Files.list(generated)) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted())
          .containsExactlyElementsOf(CommittedCrds.CRD_FILES);
    }
    for (String file : CommittedCrds.CRD_FILES) {
      assertThat(committed.resolve(file))
          .as("crds/%s is stale: the model changed. Run `mvn -pl crd-tools -am process-classes && cp crd-tools/target/crds/*.yml crds/` and commit.", file)
          .exists()
          .hasSameTextualContentAs(generated.resolve(file));
    }
  }
}
