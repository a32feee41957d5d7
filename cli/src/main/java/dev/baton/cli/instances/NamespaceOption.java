package dev.baton.cli.instances;

import dev.baton.cli.support.EnvVariable;
import picocli.CommandLine.Option;

/** {@code -n}: the namespace of the Workflow. */
public final class NamespaceOption {

  @EnvVariable("BATON_NAMESPACE")
  @Option(names = {"-n", "--namespace"}, paramLabel = "NS", defaultValue = "default",
      description = "Namespace of the Workflow.")
  String namespace;

  public String namespace() {
    return namespace;
  }
}
