package dev.baton.operator;

import dev.baton.api.client.TolerantSerialization;
import dev.baton.contract.settings.InvalidSettingsException;
import dev.baton.contract.settings.LogFormat;
import dev.baton.contract.settings.SettingsReader;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;

/**
 * The operator as a process: settings from {@code BATON_*} environment variables ({@link OperatorSettings}), the
 * cluster from the usual kubeconfig or in-cluster service account, logs as text or, with {@code BATON_LOG_FORMAT=json},
 * as JSON lines. Runs until the JVM is asked to stop.
 */
public final class Main {

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    Map<String, String> env = System.getenv();
    if (System.getProperty("logback.configurationFile") == null) {
      // A bad BATON_LOG_FORMAT is reported below with the other settings.
      System.setProperty("logback.configurationFile", logConfiguration(LogFormat.read(SettingsReader.of(env))));
    }
    OperatorSettings settings;
    try {
      settings = SettingsReader.read(env, r -> {
        LogFormat.read(r);
        return OperatorSettings.fromEnvironment(r);
      });
    } catch (InvalidSettingsException e) {
      LoggerFactory.getLogger(Main.class).error("The Baton operator could not start: {}", e.getMessage());
      System.exit(1);
      return;
    }
    KubernetesClient client = TolerantSerialization.clientBuilder().build();
    BatonOperator operator = BatonOperator.start(client, settings);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      operator.close();
      client.close();
      stopped.countDown();
    }, "baton-operator-shutdown"));
    stopped.await();
  }

  /** {@code BATON_LOG_FORMAT=json}: one JSON object per line (logback's JsonEncoder); text lines otherwise. */
  static String logConfiguration(LogFormat format) {
    return format == LogFormat.JSON ? "baton-operator-logback-json.xml" : "baton-operator-logback.xml";
  }
}
