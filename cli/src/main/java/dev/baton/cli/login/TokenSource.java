package dev.baton.cli.login;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Where the commands over the runtime take their bearer token from, the first that has one: {@code --token} (or
 * {@code BATON_RUNTIME_TOKEN}); the token {@code baton login} saved for this runtime URL; the user of kubectl's
 * current context (its token, token file or exec plugin, read as kubectl reads them), which is what a runtime with
 * {@code BATON_AUTH=kubernetes} takes. The token is never printed: {@link Token#from} says where it came from, for
 * the message when the runtime refuses it.
 */
public final class TokenSource {

  /** A token and where it came from. */
  public record Token(String value, String from) {

    @Override
    public String toString() {
      return "Token[from=" + from + "]";
    }
  }

  private final SavedLogins saved;
  private final Supplier<Optional<Token>> kubeconfig;

  TokenSource(SavedLogins saved, Supplier<Optional<Token>> kubeconfig) {
    this.saved = saved;
    this.kubeconfig = kubeconfig;
  }

  /**
   * @param saved the logins {@code baton login} saved
   * @param kubeconfig kubectl's kubeconfig (the first file of {@code KUBECONFIG}, else {@code ~/.kube/config})
   */
  public static TokenSource of(SavedLogins saved, Path kubeconfig) {
    return new TokenSource(saved, () -> currentContext(kubeconfig));
  }

  /** The token for {@code runtimeUrl}: {@code explicit} when given, else a saved login, else kubectl's context. */
  public Optional<Token> find(String explicit, String runtimeUrl) {
    if (explicit != null && !explicit.isBlank()) {
      return Optional.of(new Token(explicit.trim(), "--token or BATON_RUNTIME_TOKEN"));
    }
    Optional<String> login = saved.token(runtimeUrl);
    if (login.isPresent()) {
      return Optional.of(new Token(login.get(), "`baton login` (" + saved.file() + ")"));
    }
    return kubeconfig.get();
  }

  /** The bearer token of the kubeconfig's current context, through fabric8's reading of it (as kubectl's). */
  static Optional<Token> currentContext(Path kubeconfig) {
    if (kubeconfig == null || !Files.isRegularFile(kubeconfig)) {
      return Optional.empty();
    }
    try {
      Config config = Config.fromKubeconfig((File) kubeconfig.toFile());
      String token = config.getAutoOAuthToken() != null ? config.getAutoOAuthToken() : config.getOauthToken();
      if (token == null || token.isBlank()) {
        token = tokenFile(kubeconfig, config).orElse(null);
      }
      if (token == null || token.isBlank()) {
        return Optional.empty();
      }
      String context = config.getCurrentContext() == null ? "" : " '" + config.getCurrentContext().getName() + "'";
      return Optional.of(new Token(token.trim(), "kubectl's current context" + context));
    } catch (IOException | RuntimeException unreadable) {
      return Optional.empty(); // no kubeconfig, or one fabric8 cannot read: no token from there
    }
  }

  /**
   * The current context's {@code user.tokenFile} (kubectl reads it; fabric8's client does not), relative to the
   * kubeconfig's directory when relative.
   */
  private static Optional<String> tokenFile(Path kubeconfig, Config config) throws IOException {
    if (config.getCurrentContext() == null) {
      return Optional.empty();
    }
    String user = config.getCurrentContext().getContext().getUser();
    io.fabric8.kubernetes.api.model.Config raw = new KubernetesSerialization().unmarshal(
        Files.readString(kubeconfig), io.fabric8.kubernetes.api.model.Config.class);
    Optional<String> file = raw.getUsers() == null ? Optional.empty() : raw.getUsers().stream()
        .filter(u -> u.getName().equals(user) && u.getUser() != null && u.getUser().getTokenFile() != null)
        .map(u -> u.getUser().getTokenFile()).findFirst();
    if (file.isEmpty()) {
      return Optional.empty();
    }
    Path path = kubeconfig.toAbsolutePath().getParent().resolve(file.get());
    return Optional.of(Files.readString(path).trim());
  }
}
