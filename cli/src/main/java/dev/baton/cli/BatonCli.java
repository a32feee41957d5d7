package dev.baton.cli;

import dev.baton.cli.support.CliException;
import dev.baton.cli.support.ExitCodes;
import picocli.CommandLine;

/** {@code bin/baton}: the entry point of the shaded jar. */
public final class BatonCli {

  private BatonCli() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    return new CommandLine(new BatonCommand())
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setExecutionExceptionHandler(BatonCli::failed);
  }

  /**
   * A command that cannot do what was asked says so in one line on stderr ({@code baton get: ...}) and exits with
   * the code of {@link CliException}; anything unexpected exits 1 the same way.
   */
  private static int failed(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
    String who = cmd.getCommandSpec().qualifiedName();
    if (e instanceof CliException c) {
      cmd.getErr().println(who + ": " + c.getMessage());
      cmd.getErr().flush();
      return c.exitCode();
    }
    cmd.getErr().println(who + ": unexpected error: " + e);
    if (System.getenv("BATON_DEBUG") != null) {
      e.printStackTrace(cmd.getErr());
    }
    cmd.getErr().flush();
    return ExitCodes.SERVER_ERROR;
  }
}
