package dev.baton.cli.instances;

import dev.baton.cli.login.SavedLogins;
import dev.baton.cli.login.TokenSource;
import dev.baton.cli.support.EnvVariable;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --runtime-url}: where the runtime's HTTP API is. */
public final class RuntimeOptions {

  @EnvVariable(value = "BATON_RUNTIME_URL", schemes = {"http", "https"})
  @Option(names = "--runtime-url", paramLabel = "URL", defaultValue = "http://127.0.0.1:8080",
      description = "The runtime's HTTP API (`baton dev` serves it at the default).")
  String url;

  @EnvVariable(value = "BATON_RUNTIME_TOKEN", secret = true)
  @Option(names = "--token", paramLabel = "TOKEN",
      showDefaultValue = picocli.CommandLine.Help.Visibility.NEVER,
      description = "Bearer token for a runtime that requires one (better: from the environment, or `baton login`;"
          + " without one, the token of kubectl's current context is sent if it has one).")
  String token;

  @EnvVariable("XDG_CONFIG_HOME")
  @Option(names = "--config-home", hidden = true, description = "Where `baton login` keeps its tokens (baton/logins.json"
      + " under it; default ~/.config).")
  String configHome;

  @EnvVariable("KUBECONFIG")
  @Option(names = "--kubeconfig", paramLabel = "FILE", description = "The kubeconfig whose current context's token is"
      + " sent when no other is given (default: ~/.kube/config).")
  String kubeconfig;

  public RuntimeClient client() {
    return new RuntimeClient(url, tokens().find(token, url).orElse(null));
  }

  /** A client that sends exactly {@code token} (for {@code baton login}, which checks a token before saving it). */
  public RuntimeClient client(TokenSource.Token token) {
    return new RuntimeClient(url, token);
  }

  /** The runtime's URL as given. */
  public String url() {
    return url;
  }

  /** The token given with {@code --token} or {@code BATON_RUNTIME_TOKEN}, or null. */
  public String explicitToken() {
    return token;
  }

  /** The logins {@code baton login} saved. */
  public SavedLogins savedLogins() {
    return SavedLogins.under(configHome);
  }

  /** Where the token comes from ({@link TokenSource}). */
  TokenSource tokens() {
    return TokenSource.of(savedLogins(), kubeconfigFile());
  }

  /** The first file of {@code KUBECONFIG} (kubectl merges the list; its current context is usually in the first). */
  private Path kubeconfigFile() {
    if (kubeconfig == null || kubeconfig.isBlank()) {
      return Path.of(System.getProperty("user.home"), ".kube", "config");
    }
    return Path.of(kubeconfig.split(java.io.File.pathSeparator)[0]);
  }
}
