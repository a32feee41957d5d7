package dev.baton.cli;

import dev.baton.devapi.Kubectl;
import dev.baton.runtime.http.auth.AuthMode;
import dev.baton.runtime.tracing.RuntimeTracing;
import dev.baton.sandbox.LocalServices;
import dev.baton.sandbox.PostgresDatabase;
import dev.baton.sandbox.Sandbox;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code baton dev} started in-process on a {@link Sandbox}'s vhost, broker users and database (the stack owns it,
 * so closing the stack stops it first), and the real kubectl pointed at its API.
 */
record DevRun(DevStack stack, Kubectl kubectl) {

  /**
   * @param home where the kubeconfig ({@code .baton/kubeconfig}) and kubectl's cache go
   * @param resync how often the operator reconciles everything again
   * @param exampleWorkers whether the example workers run in-process
   * @param printed what {@code baton dev} prints
   */
  static DevRun start(Sandbox on, Path home, Duration resync, boolean exampleWorkers, PrintStream printed) {
    return start(on, home, resync, exampleWorkers, printed, null);
  }

  /** @param tracing where the runtime's and the example workers' spans go (null: the OTEL_* variables) */
  static DevRun start(Sandbox on, Path home, Duration resync, boolean exampleWorkers, PrintStream printed,
      RuntimeTracing tracing) {
    return start(on, home, resync, exampleWorkers, printed, tracing, AuthMode.TOKEN);
  }

  /** @param auth how the runtime knows its callers ({@code --auth}) */
  static DevRun start(Sandbox on, Path home, Duration resync, boolean exampleWorkers, PrintStream printed,
      RuntimeTracing tracing, AuthMode auth) {
    return start(on, home, resync, exampleWorkers, printed, tracing, auth, WorkerLanguage.JAVA);
  }

  /** @param workers the example workers' language ({@code --workers}), other languages' programs from this checkout */
  static DevRun start(Sandbox on, Path home, Duration resync, boolean exampleWorkers, PrintStream printed,
      RuntimeTracing tracing, AuthMode auth, WorkerLanguage workers) {
    PostgresDatabase database = on.database();
    DevSettings settings = new DevSettings("127.0.0.1", 0, 0, LocalServices.RABBITMQ_MANAGEMENT_URL,
        LocalServices.RABBITMQ_HOST, LocalServices.RABBITMQ_PORT, LocalServices.RABBITMQ_USERNAME,
        LocalServices.RABBITMQ_PASSWORD, on.vhost().name(), on.userPrefix(), resync, database.jdbcUrl(),
        database.user(), database.password(), home.resolve(".baton/kubeconfig"), exampleWorkers, null, auth,
        workers);
    DevStack stack = on.own(DevStack.start(settings, printed, tracing, repository()));
    return new DevRun(stack, new Kubectl(stack.kubeconfig(), home.resolve("kube-cache")));
  }

  /** {@code examples/order-saga/}, the README quickstart's resources, for {@code kubectl apply -f}. */
  static String orderSaga() {
    return repository().resolve("examples/order-saga").toString();
  }

  /** The checkout this test runs in (Maven's {@code baton.repo.root}, else the parent of the module). */
  static Path repository() {
    String root = System.getProperty("baton.repo.root");
    return Path.of(root == null ? ".." : root).toAbsolutePath().normalize();
  }
}
