package dev.baton.cli.login;

import dev.baton.cli.instances.RuntimeOptions;
import dev.baton.cli.support.CliException;
import dev.baton.cli.support.ExitCodes;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.WhoAmI;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code baton login}: checks a token with the runtime ({@code GET /api/v1/whoami}) and saves it for that runtime's
 * URL ({@link SavedLogins}), so the other commands send it without {@code --token}. The token is read from standard
 * input ({@code kubectl create token ci -n team-a | baton login --token-stdin}), from {@code --token}, or asked for
 * without echo; it is never printed.
 */
@Command(name = "login", mixinStandardHelpOptions = true,
    description = {"Save a token for the runtime at --runtime-url, after checking it there.",
        "E.g. kubectl create token ci -n team-a | baton login --token-stdin"})
public final class LoginCommand implements Callable<Integer> {

  @Mixin RuntimeOptions runtime;

  @Option(names = "--token-stdin", description = "Read the token from standard input.")
  boolean fromStdin;

  @Spec CommandSpec spec;

  /** Standard input; a test gives its own. */
  InputStream stdin = System.in;

  @Override
  public Integer call() throws IOException {
    String token = fromStdin ? new String(stdin.readAllBytes(), StandardCharsets.UTF_8).trim()
        : runtime.explicitToken() != null ? runtime.explicitToken().trim() : prompt();
    if (token == null || token.isEmpty()) {
      throw new CliException(ExitCodes.USAGE, "no token given: pipe one to `baton login --token-stdin`, pass --token,"
          + " or run it in a terminal to be asked");
    }
    WhoAmI me = runtime.client(new TokenSource.Token(token, "baton login")).get(ApiPaths.WHOAMI, WhoAmI.class);
    runtime.savedLogins().save(runtime.url(), token);
    var out = spec.commandLine().getOut();
    out.println("Logged in to " + runtime.url() + " as " + me.user() + " (" + me.auth() + "); the token is saved in "
        + runtime.savedLogins().file());
    out.flush();
    return ExitCodes.OK;
  }

  private static String prompt() {
    var console = System.console();
    if (console == null) {
      return null;
    }
    char[] typed = console.readPassword("Token: ");
    return typed == null ? null : new String(typed);
  }
}
