package dev.baton.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.contract.topology.BindingSpec;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RuntimeRoutesTest {

  @Test
  void resultBindingsOfEachWorkflowToItsOrchestratorQueue() {
    Map<ResourceID, Set<BindingSpec>> routes = RuntimeRoutes.parse("{\"items\":[{\"namespace\":\"default\","
        + "\"workflow\":\"order\",\"revisions\":[1,2],\"bindings\":["
        + "{\"exchange\":\"stock.event.topic.ex\",\"routingKey\":\"order.reserve.success\"},"
        + "{\"exchange\":\"ship.event.topic.ex\",\"routingKey\":\"parcel.send.error\"}]}]}");
    assertThat(routes).containsExactly(Map.entry(new ResourceID("order", "default"), Set.of(
        new BindingSpec("stock.event.topic.ex", "q.orchestrator.order", "order.reserve.success"),
        new BindingSpec("ship.event.topic.ex", "q.orchestrator.order", "parcel.send.error"))));
  }

  /** The answer can bind nothing but result keys from event exchanges: not a command exchange, not a wildcard. */
  @Test
  void onlyResultBindingsAreTaken() {
    String[][] refused = {{"stock.command.topic.ex", "order.reserve.success"}, {"stock.event.topic.ex", "#"},
        {"stock.event.topic.ex", "order.*.success"}, {"stock.event.topic.ex", "order.reserve.done"},
        {"amq.topic", "order.reserve.success"}, {"a.b.event.topic.ex", "order.reserve.success"},
        {"stock.event.topic.ex", "order.reserve.success.x"}};
    for (String[] r : refused) {
      assertThat(RuntimeRoutes.isResultBinding(r[0], r[1])).as(r[0] + " " + r[1]).isFalse();
    }
    assertThat(RuntimeRoutes.isResultBinding("stock.event.topic.ex", "order.reserve.failed")).isTrue();
    assertThat(RuntimeRoutes.parse("{\"items\":[{\"namespace\":\"n\",\"workflow\":\"w\",\"bindings\":["
        + "{\"exchange\":\"x.command.topic.ex\",\"routingKey\":\"service.x.y\"}]}]}"))
        .containsExactly(Map.entry(new ResourceID("w", "n"), Set.of()));
  }

  @Test
  void unreadableAnswersAreUnavailable() {
    assertThatThrownBy(() -> RuntimeRoutes.parse("<html>")).isInstanceOf(RuntimeApi.Unavailable.class);
    assertThatThrownBy(() -> RuntimeRoutes.parse("{}")).isInstanceOf(RuntimeApi.Unavailable.class)
        .hasMessageContaining("'items'");
  }
}
