package dev.baton.cli;

import picocli.CommandLine.Command;

/**
 * {@code baton}: the top command. Each subcommand is its own class; the ones over the runtime's HTTP API (start,
 * get, describe, cancel, retry, dlq, bench) join {@code subcommands} here as they are written.
 */
@Command(name = "baton", mixinStandardHelpOptions = true, versionProvider = BatonVersion.class,
    description = "Workflows over RabbitMQ: the operator, the orchestrator runtime and their tools.",
    subcommands = {DevCommand.class})
final class BatonCommand implements Runnable {

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
