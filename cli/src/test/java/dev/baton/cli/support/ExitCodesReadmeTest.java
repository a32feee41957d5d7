package dev.baton.cli.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** cli/README.md's table of exit codes lists exactly the codes of {@link ExitCodes}, the one place they are set. */
class ExitCodesReadmeTest {

  @Test
  void theReadmesTableListsEveryExitCodeAndNoOther() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    String section = readme.substring(readme.indexOf("## Output and exit codes"));
    section = section.substring(section.indexOf("| exit | meaning |"));
    Set<Integer> documented = new TreeSet<>();
    Matcher row = Pattern.compile("^\\| (\\d+) \\|", Pattern.MULTILINE).matcher(section.substring(0,
        section.indexOf("\n\n")));
    while (row.find()) {
      documented.add(Integer.parseInt(row.group(1)));
    }
    Set<Integer> codes = new TreeSet<>();
    for (Field f : ExitCodes.class.getFields()) {
      if (f.getType() == int.class && Modifier.isStatic(f.getModifiers())) {
        codes.add(f.getInt(null));
      }
    }
    assertThat(documented).as("README rows").isEqualTo(codes);
    assertThat(codes).containsAll(Arrays.asList(0, 1, 2, 3, 4, 5, 6, 7, 8));
  }
}
