package dev.baton.cli.instances;

import picocli.CommandLine.Option;

/** {@code -n}: the namespace of the Workflow. */
public final class NamespaceOption {

  @Option(names = {"-n", "--namespace"}, paramLabel = "NS", defaultValue = "${env:BATON_NAMESPACE:-default}",
      description = "Namespace of the Workflow (env BATON_NAMESPACE).")
  String namespace;

  public String namespace() {
    return namespace;
  }
}
