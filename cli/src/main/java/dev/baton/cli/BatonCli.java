package dev.baton.cli;

import dev.baton.cli.support.CliException;
import dev.baton.cli.support.EnvironmentDefaults;
import dev.baton.cli.support.EnvironmentHelp;
import dev.baton.cli.support.ExitCodes;
import dev.baton.contract.settings.InvalidSettingsException;
import dev.baton.contract.settings.SettingsReader;
import java.util.Map;
import picocli.CommandLine;

/** {@code bin/baton}: the entry point of the shaded jar. */
public final class BatonCli {

  private BatonCli() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    return commandLine(System.getenv());
  }

  /** The commands with their options' defaults from {@code env} ({@link EnvironmentDefaults}). */
  static CommandLine commandLine(Map<String, String> env) {
    CommandLine cli = new CommandLine(new BatonCommand())
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setDefaultValueProvider(new EnvironmentDefaults(env))
        .setExecutionExceptionHandler((e, cmd, parsed) -> failed(e, cmd, env));
    cli.setParameterExceptionHandler(badEnvironmentOr(cli.getParameterExceptionHandler()));
    EnvironmentHelp.addTo(cli);
    return cli;
  }

  /**
   * A command that cannot do what was asked says so in one line on stderr ({@code baton get: ...}) and exits with
   * the code of {@link CliException}; anything unexpected exits 1 the same way.
   */
  private static int failed(Exception e, CommandLine cmd, Map<String, String> env) {
    String who = cmd.getCommandSpec().qualifiedName();
    if (e instanceof CliException c) {
      cmd.getErr().println(who + ": " + c.getMessage());
      cmd.getErr().flush();
      return c.exitCode();
    }
    cmd.getErr().println(who + ": unexpected error: " + e);
    // While failing, a bad BATON_DEBUG is no reason for a second error: it just means no stack trace.
    if (SettingsReader.of(env).bool("BATON_DEBUG", false)) {
      e.printStackTrace(cmd.getErr());
    }
    cmd.getErr().flush();
    return ExitCodes.SERVER_ERROR;
  }

  /** A bad {@code BATON_*} variable is one line like any other error, without the usage text a bad flag gets. */
  private static CommandLine.IParameterExceptionHandler badEnvironmentOr(CommandLine.IParameterExceptionHandler other) {
    return (e, args) -> {
      if (!(e.getCause() instanceof InvalidSettingsException)) {
        return other.handleParseException(e, args);
      }
      CommandLine cmd = e.getCommandLine();
      cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + e.getMessage());
      cmd.getErr().flush();
      return ExitCodes.USAGE;
    };
  }
}
