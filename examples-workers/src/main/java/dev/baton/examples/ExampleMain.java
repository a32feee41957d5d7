package dev.baton.examples;

import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.settings.SettingsReader;
import dev.baton.worker.BatonWorker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every example worker's {@code main} does in a container: configure from the environment, start, wait. As a
 * main of its own, it runs the example worker named by its argument, {@code BATON_EXAMPLE_WORKER}, or
 * {@code BATON_SERVICE} (which the operator sets): one image serves all four WorkerServices of the saga.
 */
public final class ExampleMain {

  private static final Logger LOG = LoggerFactory.getLogger(ExampleMain.class);

  private ExampleMain() {}

  public static void main(String[] args) {
    String name = args.length > 0 ? args[0] : SettingsReader.read(System.getenv(),
        r -> r.string("BATON_EXAMPLE_WORKER", r.string(WorkerEnvironment.SERVICE, null)));
    ExampleWorker example = ExampleWorkers.create(name).orElse(null);
    if (example == null) {
      System.err.println("no example worker '" + name + "': name one of " + ExampleWorkers.NAMES
          + " as argument, BATON_EXAMPLE_WORKER or BATON_SERVICE");
      System.exit(2);
      return;
    }
    run(example);
  }

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
