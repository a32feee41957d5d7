package dev.baton.api.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds broken relative links in a repository: Markdown links and images whose file does not exist or whose
 * {@code #anchor} names no heading of the target page, and citations such as {@code docs/design.md#broker-names} in
 * code comments whose page or anchor does not exist. Anchors are GitHub's: the heading text lower-cased, punctuation
 * other than {@code -} and {@code _} dropped, spaces turned into {@code -}, repeats numbered {@code -1}, {@code -2}.
 * External links (http, https, mailto) are not followed.
 */
final class MarkdownLinks {

  /** Directories never searched: build output, the local state of {@code baton dev}, tooling. */
  private static final Set<String> SKIPPED_DIRECTORIES = Set.of("target", ".git", ".baton", "node_modules", ".idea");

  /** Text files that may cite a page of docs/ by path and anchor. */
  private static final Pattern CITING_FILE =
      Pattern.compile(".*\\.(java|xml|ya?ml|sql|tpl|txt|properties|json|sh|Dockerfile)$|.*/bin/[^/.]+$|.*Dockerfile$");

  private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
  private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
  private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
  /** {@code [text](target)} or {@code ![alt](target "title")}; the text may hold one level of brackets. */
  private static final Pattern INLINE_LINK =
      Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\[\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(\\s.*)?$");
  private static final Pattern CITATION = Pattern.compile("(?<![\\w./-])(docs/[\\w.-]+\\.md)#([\\w-]+)");
  private static final Pattern LINK_IN_HEADING = Pattern.compile("!?\\[([^\\]]*)\\]\\([^)]*\\)");

  /** One broken link: where it is and why it does not resolve. */
  record Broken(Path file, int line, String target, String why) {
    @Override
    public String toString() {
      return file + ":" + line + ": " + target + " (" + why + ")";
    }
  }

  private final Path root;
  private final Map<Path, Set<String>> anchorsByPage = new HashMap<>();

  MarkdownLinks(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  /** Every broken link and citation under the root, in file order. */
  List<Broken> broken() {
    List<Broken> found = new ArrayList<>();
    for (Path file : files()) {
      String name = file.getFileName().toString();
      if (name.endsWith(".md")) {
        checkMarkdown(file, found);
      } else if (CITING_FILE.matcher(file.toString().replace('\\', '/')).matches()) {
        checkCitations(file, found);
      }
    }
    return found;
  }

  /** The Markdown pages under the root (for the test's own sanity check). */
  List<Path> pages() {
    return files().stream().filter(f -> f.getFileName().toString().endsWith(".md")).toList();
  }

  /** GitHub's anchor for a heading's text. */
  static String slug(String headingText) {
    String text = LINK_IN_HEADING.matcher(headingText).replaceAll("$1");
    text = text.replaceAll("<[^>]+>", "").toLowerCase(Locale.ROOT);
    StringBuilder slug = new StringBuilder();
    text.codePoints().forEach(c -> {
      if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
        slug.appendCodePoint(c);
      } else if (c == ' ') {
        slug.append('-');
      }
    });
    return slug.toString();
  }

  private List<Path> files() {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(p -> root.relativize(p).toString().isEmpty() || !skipped(root.relativize(p)))
          .filter(Files::isRegularFile).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean skipped(Path relative) {
    for (Path part : relative) {
      if (SKIPPED_DIRECTORIES.contains(part.toString())) {
        return true;
      }
    }
    return false;
  }

  private void checkMarkdown(Path page, List<Broken> found) {
    List<String> lines = read(page);
    boolean inFence = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (FENCE.matcher(line).find()) {
        inFence = !inFence;
        continue;
      }
      if (inFence) {
        continue;
      }
      String prose = CODE_SPAN.matcher(line).replaceAll("");
      Matcher definition = REFERENCE_DEFINITION.matcher(prose);
      if (definition.matches()) {
        check(page, i + 1, definition.group(1), found);
        continue;
      }
      Matcher link = INLINE_LINK.matcher(prose);
      while (link.find()) {
        check(page, i + 1, link.group(1), found);
      }
    }
  }

  private void checkCitations(Path file, List<Broken> found) {
    List<String> lines = read(file);
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = CITATION.matcher(lines.get(i));
      while (m.find()) {
        Path page = root.resolve(m.group(1)).normalize();
        if (!Files.isRegularFile(page)) {
          found.add(new Broken(root.relativize(file), i + 1, m.group(), "no such page"));
        } else if (!anchors(page).contains(m.group(2))) {
          found.add(new Broken(root.relativize(file), i + 1, m.group(), "no heading with this anchor"));
        }
      }
    }
  }

  private void check(Path page, int line, String target, List<Broken> found) {
    String lower = target.toLowerCase(Locale.ROOT);
    if (lower.startsWith("http:") || lower.startsWith("https:") || lower.startsWith("mailto:")) {
      return;
    }
    int hash = target.indexOf('#');
    String path = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : target.substring(hash + 1);
    Path resolved = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
    Path shown = root.relativize(page);
    if (!resolved.startsWith(root)) {
      found.add(new Broken(shown, line, target, "points outside the repository"));
    } else if (!Files.exists(resolved)) {
      found.add(new Broken(shown, line, target, "no such file"));
    } else if (anchor != null && !anchor.isEmpty()) {
      if (!resolved.getFileName().toString().endsWith(".md")) {
        found.add(new Broken(shown, line, target, "an anchor into a file that is not Markdown"));
      } else if (!anchors(resolved).contains(anchor)) {
        found.add(new Broken(shown, line, target, "no heading with this anchor in " + root.relativize(resolved)));
      }
    }
  }

  /** The anchors of a page: its headings' slugs (repeats numbered) and explicit {@code <a id>} anchors. */
  Set<String> anchors(Path page) {
    return anchorsByPage.computeIfAbsent(page.toAbsolutePath().normalize(), p -> {
      Set<String> anchors = new HashSet<>();
      Map<String, Integer> seen = new HashMap<>();
      boolean inFence = false;
      for (String line : read(p)) {
        if (FENCE.matcher(line).find()) {
          inFence = !inFence;
          continue;
        }
        if (inFence) {
          continue;
        }
        Matcher heading = HEADING.matcher(line);
        if (heading.matches()) {
          String slug = slug(heading.group(2));
          int n = seen.merge(slug, 1, Integer::sum);
          anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        Matcher html = HTML_ANCHOR.matcher(line);
        while (html.find()) {
          anchors.add(html.group(1));
        }
      }
      return anchors;
    });
  }

  private static List<String> read(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (java.nio.charset.MalformedInputException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
