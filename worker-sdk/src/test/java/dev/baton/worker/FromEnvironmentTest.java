package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.contract.RetryStaircase;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.settings.InvalidSettingsException;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link BatonWorker.Builder#fromEnvironment(Map)} without a broker: what it reads, and how it refuses. */
class FromEnvironmentTest {

  static Map<String, String> pod() {
    ServiceModel model = new ServiceModel("inventory", QueueType.CLASSIC,
        List.of(new ServiceModel.Command("reserve", RetryStaircase.of(2, List.of("1s")))), List.of());
    Map<String, String> env = new HashMap<>(new WorkerEnvironment(model, 7).variables());
    env.put(WorkerEnvironment.RABBITMQ_URI, "amqp://nobody:wrong@127.0.0.1:5672/%2F");
    env.put(WorkerEnvironment.RABBITMQ_USERNAME, "baton-inventory");
    env.put(WorkerEnvironment.RABBITMQ_PASSWORD, "s3cret");
    return env;
  }

  @Test
  void theQueuesAndTheBrokerComeFromOneRead(@TempDir Path dir) throws Exception {
    Map<String, String> env = pod();
    env.remove(WorkerEnvironment.RABBITMQ_PASSWORD);
    Path password = Files.writeString(dir.resolve("p"), "from-file\n");
    env.put(WorkerEnvironment.RABBITMQ_PASSWORD + "_FILE", password.toString());
    BatonWorker worker = BatonWorker.builder().fromEnvironment(env).command("reserve", cmd -> CommandResult.success())
        .build();
    assertThat(worker.service()).isEqualTo("inventory");
    assertThat(worker.queues()).containsExactly("q.inventory.reserve");
    worker.close();
  }

  @Test
  void everyBadVariableOfBothHalvesIsNamedAtOnceWithoutTheSecrets() {
    Map<String, String> env = pod();
    env.put(WorkerEnvironment.PREFETCH, "many");
    env.put("BATON_CONSUMER_RESERVE_MAX_ATTEMPTS", "0");
    env.put(WorkerEnvironment.RABBITMQ_URI, "http://nobody:wrong@127.0.0.1:5672/");
    env.remove(WorkerEnvironment.RABBITMQ_PASSWORD);
    assertThatThrownBy(() -> BatonWorker.builder().fromEnvironment(env))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessage("BATON_PREFETCH: expected a whole number of at least 1, got 'many'; "
            + "BATON_CONSUMER_RESERVE_MAX_ATTEMPTS: expected a whole number of at least 1, got '0'; "
            + "BATON_RABBITMQ_URI: expected a URI with scheme amqp or amqps and a host, got "
            + "'http://nobody:***@127.0.0.1:5672/'; "
            + "BATON_RABBITMQ_PASSWORD: required when BATON_RABBITMQ_USERNAME is set")
        .hasMessageNotContaining("wrong");
  }

  @Test
  void theHandlerLimitsComeFromTheSameReadAndOtherwiseStayAsBuilt() {
    Map<String, String> env = pod();
    env.put(WorkerSettings.HANDLER_TIMEOUT, "90s");
    env.put(WorkerSettings.MAX_RESULT_BYTES, "4096");
    try (BatonWorker worker = BatonWorker.builder().fromEnvironment(env).command("reserve",
        cmd -> CommandResult.success()).build()) {
      assertThat(worker.limits()).isEqualTo(new HandlerLimits(Duration.ofSeconds(90), 4096));
    }
    try (BatonWorker worker = BatonWorker.builder().handlerTimeout(Duration.ofMinutes(3)).fromEnvironment(pod())
        .command("reserve", cmd -> CommandResult.success()).build()) {
      assertThat(worker.limits()).isEqualTo(new HandlerLimits(Duration.ofMinutes(3),
          HandlerLimits.DEFAULT_MAX_RESULT_BYTES));
    }
    try (BatonWorker worker = BatonWorker.builder().fromEnvironment(pod())
        .command("reserve", cmd -> CommandResult.success()).build()) {
      assertThat(worker.limits()).isEqualTo(HandlerLimits.DEFAULTS);
    }
  }

  @Test
  void theHandlerThreadsComeFromTheEnvironmentOrElseOneForEveryDeliveryThatCanBeUnacked() {
    Map<String, String> env = pod();
    env.put(WorkerSettings.HANDLER_THREADS, "3");
    try (BatonWorker worker = BatonWorker.builder().fromEnvironment(env).command("reserve",
        cmd -> CommandResult.success()).build()) {
      assertThat(worker.handlerThreads()).isEqualTo(3);
    }
    // prefetch 7 × 2 channels × 1 queue
    try (BatonWorker worker = BatonWorker.builder().concurrency(2).fromEnvironment(pod()).command("reserve",
        cmd -> CommandResult.success()).build()) {
      assertThat(worker.handlerThreads()).isEqualTo(14);
    }
    env.put(WorkerSettings.HANDLER_THREADS, "0");
    assertThatThrownBy(() -> BatonWorker.builder().fromEnvironment(env))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessage("BATON_HANDLER_THREADS: expected a whole number of at least 1, got '0'");
  }

  @Test
  void theHealthEndpointAndPrometheusMetricsComeFromTheEnvironmentToo() {
    Map<String, String> env = pod();
    env.put(WorkerSettings.HEALTH_PORT, "8081");
    env.put(WorkerSettings.METRICS_ENABLED, "true");
    try (BatonWorker worker = BatonWorker.builder().fromEnvironment(env).command("reserve",
        cmd -> CommandResult.success()).build()) {
      assertThat(worker.configuredHealthPort()).isEqualTo(8081);
      assertThat(worker.metricsText()).contains("baton_worker_in_flight{service=\"inventory\"} 0.0");
    }
    // Unset, or 0: no endpoint and no registry of the SDK's own.
    env.put(WorkerSettings.HEALTH_PORT, "0");
    env.remove(WorkerSettings.METRICS_ENABLED);
    try (BatonWorker worker = BatonWorker.builder().fromEnvironment(env).command("reserve",
        cmd -> CommandResult.success()).build()) {
      assertThat(worker.configuredHealthPort()).isNull();
      assertThat(worker.metricsText()).isNull();
    }
    env.put(WorkerSettings.HEALTH_PORT, "http");
    env.put(WorkerSettings.METRICS_ENABLED, "maybe");
    assertThatThrownBy(() -> BatonWorker.builder().fromEnvironment(env))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("BATON_HEALTH_PORT: expected a whole number")
        .hasMessageContaining("BATON_METRICS_ENABLED: expected true or false");
  }

  @Test
  void aBadHandlerLimitIsNamedWithTheOtherBadVariables() {
    Map<String, String> env = pod();
    env.put(WorkerEnvironment.PREFETCH, "many");
    env.put(WorkerSettings.HANDLER_TIMEOUT, "abc");
    env.put(WorkerSettings.MAX_RESULT_BYTES, "16MiB");
    assertThatThrownBy(() -> BatonWorker.builder().fromEnvironment(env))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessage("BATON_PREFETCH: expected a whole number of at least 1, got 'many'; "
            + "BATON_HANDLER_TIMEOUT: expected a duration such as 30s, got 'abc'; "
            + "BATON_MAX_RESULT_BYTES: expected a whole number of at least 1, got '16MiB'");
    env.put(WorkerEnvironment.PREFETCH, "3");
    env.put(WorkerSettings.HANDLER_TIMEOUT, "0s");
    env.remove(WorkerSettings.MAX_RESULT_BYTES);
    assertThatThrownBy(() -> BatonWorker.builder().fromEnvironment(env))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessage("BATON_HANDLER_TIMEOUT: expected a duration such as 30s, got '0s'");
  }
}
