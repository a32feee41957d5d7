package dev.baton.cli.instances;

import picocli.CommandLine.Option;

/** {@code -w/--watch}: follow what is listed ({@link InstanceWatch}). */
final class WatchOption {

  @Option(names = {"-w", "--watch"}, description = "After the listing, print a row each time an instance is new or"
      + " changes (status, step, attempt), asking the runtime every second; one instance: until it ends, exiting as"
      + " --wait does (with --wait=DURATION, at most that long); a listing: until Ctrl-C.")
  boolean watch;
}
