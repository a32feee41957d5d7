package dev.baton.operator.monitoring;

import dev.baton.contract.probes.ProbeServer;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.RuntimeInfo;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Health as JOSDK knows it: the operator has started (its informers synced) and every event source, informers
 * included, is healthy. A replica waiting for leadership is healthy: it is ready to take over.
 */
public final class OperatorHealth implements Supplier<ProbeServer.Health> {

  private final Operator operator;

  public OperatorHealth(Operator operator) {
    this.operator = operator;
  }

  @Override
  public ProbeServer.Health get() {
    RuntimeInfo info = operator.getRuntimeInfo();
    if (!info.isStarted()) {
      return new ProbeServer.Health(false, "starting: the informers have not synced yet");
    }
    if (!info.allEventSourcesAreHealthy()) {
      Map<String, Object> unhealthy = new TreeMap<>();
      info.unhealthyEventSources().forEach((controller, sources) -> {
        if (!sources.isEmpty()) {
          unhealthy.put(controller, sources.keySet());
        }
      });
      return new ProbeServer.Health(false, "unhealthy event sources: " + unhealthy);
    }
    return new ProbeServer.Health(true, "ok");
  }
}
