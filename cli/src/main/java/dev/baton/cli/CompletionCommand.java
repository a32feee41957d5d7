package dev.baton.cli;

import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.FishCompletion;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton completion bash|zsh|fish}: the shell completion script of every command and option, written from the
 * commands themselves: bash by picocli's {@link AutoComplete} (zsh runs the same script through bashcompinit, which
 * the script loads itself), fish by {@link FishCompletion}.
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
    description = {"Prints the shell completion script of baton's commands and options, to load in your shell."},
    footer = {"%nExamples:",
        "  source <(baton completion bash)                 # in ~/.bashrc",
        "  source <(baton completion zsh)                  # in ~/.zshrc",
        "  baton completion fish > ~/.config/fish/completions/baton.fish"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_USAGE})
final class CompletionCommand implements Callable<Integer> {

  enum Shell { bash, zsh, fish }

  @Parameters(index = "0", paramLabel = "SHELL", description = "The shell: ${COMPLETION-CANDIDATES}.")
  Shell shell;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    out.print(script(spec.root(), shell));
    out.flush();
    return ExitCodes.OK;
  }

  static String script(CommandSpec root, Shell shell) {
    return switch (shell) {
      case bash -> AutoComplete.bash(root.name(), root.commandLine());
      case zsh -> "# zsh completion for " + root.name() + ": the bash script below, loaded through bashcompinit\n"
          + AutoComplete.bash(root.name(), root.commandLine());
      case fish -> FishCompletion.script(root);
    };
  }
}
