package dev.baton.runtime.app;

import dev.baton.api.client.TolerantSerialization;
import dev.baton.contract.settings.InvalidSettingsException;
import dev.baton.contract.settings.LogFormat;
import dev.baton.contract.settings.SettingsReader;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime as a process: settings from {@code BATON_*} variables, the Kubernetes client from the usual places
 * (in-cluster service account, kubeconfig, {@code -Dkubernetes.master}), running until SIGTERM, then closing
 * gracefully (in-flight events finish, unacknowledged ones go back to their queue). Logs are text lines, or JSON
 * lines with {@code BATON_LOG_FORMAT=json}.
 */
public final class Main {

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    Map<String, String> env = System.getenv();
    if (System.getProperty("logback.configurationFile") == null) {
      // Before the first logger: the runtime's own configuration, unless one is given. A bad BATON_LOG_FORMAT is
      // reported below with the other settings.
      System.setProperty("logback.configurationFile", logConfiguration(LogFormat.read(SettingsReader.of(env))));
    }
    Logger log = LoggerFactory.getLogger(Main.class);
    BatonRuntime runtime;
    KubernetesClient client;
    try {
      RuntimeSettings settings = SettingsReader.read(env, r -> {
        LogFormat.read(r);
        return RuntimeSettings.fromEnvironment(r);
      });
      client = TolerantSerialization.clientBuilder().build();
      runtime = BatonRuntime.start(settings, client);
    } catch (InvalidSettingsException e) {
      log.error("The Baton runtime could not start: {}", e.getMessage());
      System.exit(1);
      return;
    } catch (RuntimeException e) {
      log.error("The Baton runtime could not start: {}", e.getMessage(), e);
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    BatonRuntime running = runtime;
    KubernetesClient owned = client;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      log.info("Stopping the Baton runtime");
      running.close();
      owned.close();
      stopped.countDown();
    }, "baton-runtime-shutdown"));
    stopped.await();
  }

  /** {@code BATON_LOG_FORMAT=json}: one JSON object per line (logback's JsonEncoder); text lines otherwise. */
  static String logConfiguration(LogFormat format) {
    return format == LogFormat.JSON
        ? "dev/baton/runtime/logback-runtime-json.xml" : "dev/baton/runtime/logback-runtime.xml";
  }
}
