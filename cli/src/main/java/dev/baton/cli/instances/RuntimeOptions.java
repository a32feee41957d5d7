package dev.baton.cli.instances;

import dev.baton.cli.support.EnvVariable;
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
      description = "Bearer token for a runtime that requires one (better: from the environment; `baton dev` needs"
          + " none unless started with --api-token).")
  String token;

  public RuntimeClient client() {
    return new RuntimeClient(url, token);
  }
}
