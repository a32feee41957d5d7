package dev.baton.api.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every relative link in the repository's Markdown resolves: the file exists and the {@code #anchor} names a heading
 * of the page. The same for citations of docs pages in code, such as {@code docs/design.md#broker-names}: the code
 * links to the design's sections by anchor, so renaming a heading must not leave them dangling.
 */
class MarkdownLinksTest {

  private static Path repositoryRoot() {
    String root = System.getProperty("baton.repo.root");
    return Path.of(root == null ? ".." : root).toAbsolutePath().normalize();
  }

  @Test
  void everyRelativeLinkAndDocsCitationInTheRepositoryResolves() {
    MarkdownLinks links = new MarkdownLinks(repositoryRoot());
    assertThat(links.pages()).as("the repository's Markdown pages")
        .contains(repositoryRoot().resolve("README.md"), repositoryRoot().resolve("docs/design.md"));
    assertThat(links.broken()).as("broken links (file:line: target (why))").isEmpty();
  }

  @Test
  void theDesignHasTheAnchorsTheCodeLinksTo() {
    MarkdownLinks links = new MarkdownLinks(repositoryRoot());
    assertThat(links.anchors(repositoryRoot().resolve("docs/design.md"))).contains("architecture", "resources",
        "workflow-language", "broker-names", "message-contract", "retries-and-dead-letters", "runtime-semantics",
        "security", "interfaces", "where-it-runs", "platform-notes", "glossary");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "Retries and dead letters | retries-and-dead-letters",
      "`baton dev` | baton-dev",
      "What it adds to the fabric8 mock, and why | what-it-adds-to-the-fabric8-mock-and-why",
      "Technical failures: the staircase | technical-failures-the-staircase",
      "cli — `bin/baton` | cli--binbaton",
      "The soak (`SoakIT`, `-Psoak`) | the-soak-soakit--psoak",
      "[Links](x.md) and snake_case | links-and-snake_case",
  })
  void anchorsAreGitHubs(String heading, String anchor) {
    assertThat(MarkdownLinks.slug(heading)).isEqualTo(anchor);
  }

  @Test
  void findsMissingFilesMissingAnchorsAndDanglingCitations(@TempDir Path root) throws IOException {
    // Put together, so that this file does not cite a page of the repository's docs/ itself.
    String page = "docs" + "/page.md";
    Files.createDirectories(root.resolve("docs"));
    Files.writeString(root.resolve(page), String.join("\n",
        "# Page", "## Broker names", "## Broker names", "<a id=\"explicit\"></a>", "```", "## not a heading", "```"));
    Files.writeString(root.resolve("README.md"), String.join("\n",
        "[ok](" + page + "#broker-names) [ok too](" + page + "#broker-names-1) [explicit](" + page + "#explicit)",
        "[gone](docs/missing.md) [bad anchor](" + page + "#not-a-heading) [self](#page-not-here)",
        "`[in code](docs/nowhere.md)` [web](https://example.com/x.md)",
        "```", "[in a fence](docs/nowhere.md)", "```",
        "[ref]: docs/also-missing.md"));
    Files.createDirectories(root.resolve("src"));
    Files.writeString(root.resolve("src/Names.java"),
        "/** See " + page + "#broker-names and " + page + "#renamed-section. */ class Names {}");
    Files.createDirectories(root.resolve("target"));
    Files.writeString(root.resolve("target/generated.md"), "[ignored](nowhere.md)");

    assertThat(new MarkdownLinks(root).broken()).extracting(b -> b.file() + ":" + b.line() + " " + b.target())
        .containsExactly(
            "README.md:2 docs/missing.md",
            "README.md:2 " + page + "#not-a-heading",
            "README.md:2 #page-not-here",
            "README.md:7 docs/also-missing.md",
            "src/Names.java:1 " + page + "#renamed-section");
  }
}
