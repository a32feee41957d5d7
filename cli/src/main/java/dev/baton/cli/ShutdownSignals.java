package dev.baton.cli;

import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Ctrl-C (SIGINT) and SIGTERM as a request to stop in order and exit 0. A JVM left to its default handling would
 * run the shutdown hooks and exit 130/143, which tells scripts the stack failed when it was simply stopped.
 */
final class ShutdownSignals {

  private ShutdownSignals() {}

  static void onStop(Runnable stop) {
    for (String name : new String[] {"INT", "TERM"}) {
      try {
        Signal.handle(new Signal(name), s -> stop.run());
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        // not available on this platform: the shutdown hook still stops the stack
        LoggerFactory.getLogger(ShutdownSignals.class).debug("cannot handle SIG{}", name, e);
      }
    }
  }
}
