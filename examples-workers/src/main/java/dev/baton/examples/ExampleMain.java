package dev.baton.examples;

import dev.baton.worker.BatonWorker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What every example worker's {@code main} does in a container: configure from the environment, start, wait. */
final class ExampleMain {

  private static final Logger LOG = LoggerFactory.getLogger(ExampleMain.class);

  private ExampleMain() {}

  static void run(ExampleWorker example) {
    BatonWorker worker;
    try {
      // BATON_SERVICE, BATON_COMMANDS, staircases, BATON_RABBITMQ_URI and credentials: all injected by the operator
      worker = example.handlers(BatonWorker.builder().fromEnvironment()).build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println(example.service() + " worker: " + e.getMessage());
      System.exit(2);
      return;
    }
    worker.closeOnJvmShutdown(); // SIGTERM: stop consuming, finish in-flight work, close
    try {
      worker.start();
    } catch (IllegalStateException e) {
      System.err.println(example.service() + " worker: " + e.getMessage());
      System.exit(1);
    }
    LOG.info("{} worker consuming {}", example.service(), worker.queues());
    // the connection's threads keep the JVM alive until SIGTERM
  }
}
