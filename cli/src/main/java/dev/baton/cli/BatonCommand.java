package dev.baton.cli;

import dev.baton.cli.dlq.DlqCommand;
import dev.baton.cli.instances.BulkCommand;
import dev.baton.cli.instances.CancelCommand;
import dev.baton.cli.instances.DescribeCommand;
import dev.baton.cli.instances.GetCommand;
import dev.baton.cli.instances.RetryCommand;
import dev.baton.cli.instances.SearchCommand;
import dev.baton.cli.instances.SignalCommand;
import dev.baton.cli.instances.StartCommand;
import dev.baton.cli.login.LoginCommand;
import dev.baton.cli.login.LogoutCommand;
import dev.baton.cli.support.ExitCodes;
import picocli.CommandLine.Command;

/**
 * {@code baton}: the top command. Each subcommand is its own class: {@code dev} (the local stack), the commands over
 * the runtime's HTTP API ({@code dev.baton.cli.instances}) and over RabbitMQ ({@code dev.baton.cli.dlq}).
 */
@Command(name = "baton", mixinStandardHelpOptions = true, versionProvider = BatonVersion.class,
    description = "Workflows over RabbitMQ: the operator, the orchestrator runtime and their tools.",
    subcommands = {DevCommand.class, StartCommand.class, GetCommand.class, SearchCommand.class, BulkCommand.class,
        DescribeCommand.class,
        CancelCommand.class, RetryCommand.class, SignalCommand.class, LoginCommand.class, LogoutCommand.class, DlqCommand.class, RuntimeCommand.class, BenchCommand.class,
        CompletionCommand.class},
    footer = {"%nbaton <command> --help tells more. The commands over the runtime talk to --runtime-url"
        + " (env BATON_RUNTIME_URL, default http://127.0.0.1:8080, where `baton dev` serves it)."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
final class BatonCommand implements Runnable {

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
