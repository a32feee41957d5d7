package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * values.yaml is documented field by field ({@code # --} comments, as helm-docs reads them) and the chart README's
 * values table lists every documented key.
 */
class ChartDocsTest {

  private static final Pattern KEY = Pattern.compile("^(\\s*)([A-Za-z][A-Za-z0-9]*):.*$");
  private static final Pattern DOC = Pattern.compile("^\\s*# -- .*$");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void everyValueIsDocumentedAndInTheReadme() throws IOException {
    Set<String> documented = documentedKeys();
    Set<String> leaves = new TreeSet<>();
    leaves(YAML.readTree(Chart.dir().resolve("values.yaml").toFile()), "", leaves);
    String readme = Files.readString(Chart.dir().resolve("README.md"));

    assertThat(documented).hasSizeGreaterThan(50);
    assertThat(leaves).as("values without a '# --' comment on them or on a parent").isNotEmpty()
        .allMatch(leaf -> documented.stream().anyMatch(d -> leaf.equals(d) || leaf.startsWith(d + ".")));
    assertThat(documented).as("documented values missing from the README's values table")
        .allMatch(key -> readme.contains("| `" + key + "` |"));
  }

  /** Dotted paths of the keys right under a {@code # --} comment. */
  private static Set<String> documentedKeys() throws IOException {
    Set<String> out = new TreeSet<>();
    Deque<Object[]> stack = new ArrayDeque<>();
    boolean doc = false;
    for (String line : Files.readAllLines(Chart.dir().resolve("values.yaml"))) {
      if (DOC.matcher(line).matches()) {
        doc = true;
        continue;
      }
      Matcher key = KEY.matcher(line);
      if (key.matches()) {
        int indent = key.group(1).length();
        while (!stack.isEmpty() && (int) stack.peek()[0] >= indent) {
          stack.pop();
        }
        stack.push(new Object[] {indent, key.group(2)});
        if (doc) {
          List<String> path = new ArrayList<>();
          stack.descendingIterator().forEachRemaining(e -> path.add((String) e[1]));
          out.add(String.join(".", path));
        }
        doc = false;
      } else if (line.isBlank()) {
        doc = false;
      }
    }
    return out;
  }

  private static void leaves(JsonNode node, String path, Set<String> out) {
    if (node.isObject() && !node.isEmpty()) {
      node.fields().forEachRemaining(e -> leaves(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey(),
          out));
    } else {
      out.add(path);
    }
  }
}
