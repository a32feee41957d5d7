package dev.baton.examples;

import dev.baton.worker.BatonWorker;

/**
 * One example worker: the handlers of one service of the order saga, with its in-memory state. The same object runs
 * in a container ({@code main} of each worker, configured by the environment the operator injects) and in-process in
 * {@code baton dev}, which configures the builder from the WorkerService and its credentials Secret.
 */
public interface ExampleWorker {

  /** The service it serves, e.g. {@code payment}. */
  String service();

  /** Registers a handler for each command and subscription of the service. */
  BatonWorker.Builder handlers(BatonWorker.Builder builder);
}
