package dev.baton.cli.dlq;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code baton dlq list|replay}: the dead-letter queues ({@code q.dlx.S.C}) and their messages. */
@Command(name = "dlq", mixinStandardHelpOptions = true,
    description = {"Dead letters: commands and events a worker gave up on after its retries (q.dlx.<service>.<name>),"
        + " parked with the reason. List them, look at them, and move them back once the cause is fixed."},
    subcommands = {DlqListCommand.class, DlqReplayCommand.class})
public final class DlqCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
