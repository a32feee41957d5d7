package dev.baton.cli.instances;

import picocli.CommandLine.Option;

/** {@code --runtime-url}: where the runtime's HTTP API is. */
public final class RuntimeOptions {

  @Option(names = "--runtime-url", paramLabel = "URL",
      defaultValue = "${env:BATON_RUNTIME_URL:-http://127.0.0.1:8080}",
      description = "The runtime's HTTP API (env BATON_RUNTIME_URL; `baton dev` serves it at the default).")
  String url;

  @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:BATON_RUNTIME_TOKEN:-}",
      showDefaultValue = picocli.CommandLine.Help.Visibility.NEVER,
      description = "Bearer token for a runtime that requires one (better: env BATON_RUNTIME_TOKEN; `baton dev` needs"
          + " none unless started with --api-token).")
  String token;

  public RuntimeClient client() {
    return new RuntimeClient(url, token);
  }
}
