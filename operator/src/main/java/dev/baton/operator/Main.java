package dev.baton.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.concurrent.CountDownLatch;

/**
 * The operator as a process: settings from {@code BATON_*} environment variables ({@link OperatorSettings}), the
 * cluster from the usual kubeconfig or in-cluster service account, logs as text or, with {@code BATON_LOG_FORMAT=json},
 * as JSON lines. Runs until the JVM is asked to stop.
 */
public final class Main {

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", logConfiguration(System.getenv("BATON_LOG_FORMAT")));
    }
    OperatorSettings settings = OperatorSettings.fromEnvironment(System.getenv());
    KubernetesClient client = new KubernetesClientBuilder().build();
    BatonOperator operator = BatonOperator.start(client, settings);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      operator.close();
      client.close();
      stopped.countDown();
    }, "baton-operator-shutdown"));
    stopped.await();
  }

  /** {@code BATON_LOG_FORMAT=json}: one JSON object per line (logback's JsonEncoder); anything else: plain text. */
  static String logConfiguration(String format) {
    return "json".equalsIgnoreCase(format == null ? "" : format.trim())
        ? "baton-operator-logback-json.xml" : "baton-operator-logback.xml";
  }
}
