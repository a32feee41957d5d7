package dev.baton.cli;

import picocli.CommandLine;

/** {@code bin/baton}: the entry point of the shaded jar. */
public final class BatonCli {

  private BatonCli() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    return new CommandLine(new BatonCommand()).setCaseInsensitiveEnumValuesAllowed(true);
  }
}
