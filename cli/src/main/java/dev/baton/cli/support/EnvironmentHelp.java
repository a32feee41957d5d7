package dev.baton.cli.support;

import dev.baton.contract.settings.SettingsReader;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

/** An "Environment" section in {@code --help}: the {@link EnvVariable} of each option, the one place it is named. */
public final class EnvironmentHelp {

  private static final String SECTION = "environment";
  private static final String OR_FILE = " or " + SettingsReader.FILE_SUFFIX;

  private EnvironmentHelp() {}

  /** Adds the section to {@code cli} and its subcommands, before the exit codes (or the footer). */
  public static void addTo(CommandLine cli) {
    List<String> keys = new ArrayList<>(cli.getHelpSectionKeys());
    if (!keys.contains(SECTION)) { // the keys may be shared with the parent command
      int at = keys.indexOf(UsageMessageSpec.SECTION_KEY_EXIT_CODE_LIST_HEADING);
      keys.add(at >= 0 ? at : keys.indexOf(UsageMessageSpec.SECTION_KEY_FOOTER_HEADING), SECTION);
      cli.setHelpSectionKeys(keys);
    }
    cli.getHelpSectionMap().put(SECTION, help -> render(help.commandSpec().options()));
    cli.getSubcommands().values().forEach(EnvironmentHelp::addTo);
  }

  private static String render(List<OptionSpec> options) {
    List<String[]> rows = new ArrayList<>();
    for (OptionSpec o : options) {
      EnvVariable v = EnvironmentDefaults.variable(o);
      if (v != null) {
        rows.add(new String[] {v.value() + (v.secret() ? OR_FILE : ""), o.longestName()});
      }
    }
    if (rows.isEmpty()) {
      return "";
    }
    int width = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
    boolean secrets = rows.stream().anyMatch(r -> r[0].endsWith(OR_FILE));
    StringBuilder text = new StringBuilder(String.format("%nEnvironment (sets the default of the option"
        + (secrets ? "; X" + SettingsReader.FILE_SUFFIX + ": a file holding X" : "") + "):%n"));
    for (String[] row : rows) {
      text.append(String.format("  %-" + width + "s  %s%n", row[0], row[1]));
    }
    return text.toString();
  }
}
