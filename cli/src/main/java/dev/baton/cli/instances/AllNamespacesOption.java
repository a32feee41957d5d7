package dev.baton.cli.instances;

import picocli.CommandLine.Option;

/** {@code -A}: every namespace instead of {@code -n}'s, on every command that lists or selects instances. */
public final class AllNamespacesOption {

  @Option(names = {"-A", "--all-namespaces"}, description = "Every namespace, not only -n's (needs the verb on"
      + " workflows/instances cluster-wide); a listing gets a NAMESPACE column.")
  boolean all;

  public boolean all() {
    return all;
  }
}
