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
    BatonWorker worker = BatonWorker.builder().fromEnvironment(env).command("reserve", cmd -> Outcome.success())
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
}
