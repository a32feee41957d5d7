package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code baton completion}: every command (nested ones too) in each shell's script, written from the commands
 * themselves; the bash script (zsh's too) is valid bash, and fish's names the options with their candidates.
 */
class CompletionCommandTest {

  @TempDir Path dir;

  /** Every subcommand's path below {@code baton}: "get", "dlq", "dlq list", ... */
  static List<String> commands(CommandSpec spec, String prefix, List<String> into) {
    spec.subcommands().forEach((name, sub) -> {
      into.add(prefix + name);
      commands(sub.getCommandSpec(), prefix + name + " ", into);
    });
    return into;
  }

  @ParameterizedTest
  @EnumSource(CompletionCommand.Shell.class)
  void eachShellsScriptNamesEveryCommand(CompletionCommand.Shell shell) throws Exception {
    CliRun run = CliRun.baton(Map.of(), "completion", shell.name());
    assertThat(run.code()).as(run.err()).isZero();
    List<String> commands = commands(BatonCli.commandLine(Map.of()).getCommandSpec(), "", new ArrayList<>());
    assertThat(commands).contains("get", "search", "completion", "dlq list", "dlq replay");
    for (String command : commands) {
      String last = command.substring(command.lastIndexOf(' ') + 1);
      assertThat(run.out()).as(command).containsPattern("\\b" + java.util.regex.Pattern.quote(last) + "\\b");
    }
    if (shell == CompletionCommand.Shell.fish) {
      assertThat(run.out())
          .contains("'baton dlq list'")
          .contains("complete -c baton -n '__baton_command_is \\'baton dlq\\'' -a 'list'")
          .contains("complete -c baton -n '__baton_command_is \\'baton get\\'' -s A -l all-namespaces -d ")
          .contains("-s o -l output -x -a 'table wide name json yaml'")
          .contains("-l from-file -r -F");
    } else {
      Path script = dir.resolve("baton." + shell);
      Files.writeString(script, run.out(), StandardCharsets.UTF_8);
      Process bash = new ProcessBuilder("bash", "-n", script.toString()).redirectErrorStream(true).start();
      assertThat(bash.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(bash.exitValue()).as(new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
          .isZero();
      assertThat(run.out()).as("loads itself in zsh").contains("bashcompinit");
    }
  }

  @org.junit.jupiter.api.Test
  void anUnknownShellIsAUsageError() {
    assertThat(CliRun.baton(Map.of(), "completion", "powershell").code()).isEqualTo(2);
  }
}
