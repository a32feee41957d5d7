package dev.baton.operator.autoscaling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KedaObjectsTest {

  @Test
  void theManagementUrlBecomesKedasHostWithCredentials() {
    assertThat(KedaObjects.managementHost("http://rabbitmq.rabbitmq.svc:15672/api/", "baton-payment.keda", "pw"))
        .isEqualTo("http://baton-payment.keda:pw@rabbitmq.rabbitmq.svc:15672/");
    assertThat(KedaObjects.managementHost("https://admin:x@mq.example:443/rabbit/api", "u", "p/q@r"))
        .isEqualTo("https://u:p%2Fq%40r@mq.example:443/rabbit/");
    assertThat(KedaObjects.managementHost("http://127.0.0.1:15672", "u", "p")).isEqualTo("http://u:p@127.0.0.1:15672/");
  }

  @Test
  void whatTheClusterAddedIsNoDifferenceButAChangedOrMissingValueIs() {
    Map<String, Object> desired = Map.of("minReplicaCount", 1, "triggers", List.of(Map.of("type", "rabbitmq")));
    assertThat(JsonSubset.covers(Map.of("minReplicaCount", 1L, "pollingInterval", 30,
        "triggers", List.of(Map.of("type", "rabbitmq", "useCachedMetrics", false))), desired)).isTrue();
    assertThat(JsonSubset.covers(Map.of("minReplicaCount", 2, "triggers", List.of(Map.of("type", "rabbitmq"))),
        desired)).isFalse();
    assertThat(JsonSubset.covers(Map.of("minReplicaCount", 1, "triggers", List.of()), desired)).isFalse();
    assertThat(JsonSubset.covers(null, desired)).isFalse();
  }
}
