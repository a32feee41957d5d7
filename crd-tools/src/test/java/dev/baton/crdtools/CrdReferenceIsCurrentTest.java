package dev.baton.crdtools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/crd-reference.md is generated from the CRDs; it must match them. */
class CrdReferenceIsCurrentTest {

  @Test
  void committedReferenceMatchesTheCrds() throws IOException {
    Path committed = Path.of("..", "docs", "crd-reference.md").toAbsolutePath().normalize();
    String expected = CrdReference.render();
    if (Boolean.getBoolean("baton.docs.update")) {
      Files.writeString(committed, expected);
    }
    assertThat(committed).as("docs/crd-reference.md is stale: run `mvn -pl crd-tools -am test -Dtest=CrdReferenceIsCurrentTest "
        + "-Dbaton.docs.update=true` and commit it").exists();
    assertThat(Files.readString(committed)).isEqualTo(expected);
  }
}
