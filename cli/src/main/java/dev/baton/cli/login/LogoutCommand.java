package dev.baton.cli.login;

import dev.baton.cli.instances.RuntimeOptions;
import dev.baton.cli.support.ExitCodes;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code baton logout}: forgets the token {@code baton login} saved for the runtime at {@code --runtime-url}. */
@Command(name = "logout", mixinStandardHelpOptions = true,
    description = "Forget the token saved for the runtime at --runtime-url.")
public final class LogoutCommand implements Callable<Integer> {

  @Mixin RuntimeOptions runtime;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    boolean had = runtime.savedLogins().forget(runtime.url());
    var out = spec.commandLine().getOut();
    out.println(had ? "Logged out of " + runtime.url() : "No token was saved for " + runtime.url());
    out.flush();
    return ExitCodes.OK;
  }
}
