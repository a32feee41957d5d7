package dev.baton.operator.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.operator.runtime.RuntimeApi.Unavailable;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads every Workflow's instance counts from the runtime in one request: {@code GET {runtimeUrl}/api/v1/counts},
 * answered with {@code {"items":[{"namespace":..,"workflow":..,"running":..,"succeeded":..,"failed":..,
 * "compensated":..,"cancelled":..}]}}. When they cannot be read, the last ones stand.
 */
public final class RuntimeCounts {

  public static final String PATH = "/api/v1/counts";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RuntimeApi runtime;

  public RuntimeCounts(RuntimeApi runtime) {
    this.runtime = runtime;
  }

  /** Where the counts are read, for the log. */
  public String where() {
    return runtime.uri(PATH).toString();
  }

  /**
   * The counts of every Workflow the runtime knows; a Workflow it does not mention has none.
   *
   * @throws Unavailable when the runtime cannot be reached or answers with an error or something unreadable
   */
  public Map<ResourceID, InstanceCounts> fetch() {
    return parse(runtime.get(PATH));
  }

  static Map<ResourceID, InstanceCounts> parse(String body) {
    JsonNode items;
    try {
      items = JSON.readTree(body).path("items");
    } catch (JsonProcessingException e) {
      throw new Unavailable("the runtime's counts are not JSON: " + e.getOriginalMessage());
    }
    if (!items.isArray()) {
      throw new Unavailable("the runtime's counts have no 'items' list");
    }
    Map<ResourceID, InstanceCounts> counts = new HashMap<>();
    for (JsonNode item : items) {
      String namespace = item.path("namespace").asText(null);
      String workflow = item.path("workflow").asText(null);
      if (namespace == null || workflow == null) {
        continue;
      }
      counts.put(new ResourceID(workflow, namespace), new InstanceCounts(item.path("running").asLong(0),
          item.path("succeeded").asLong(0), item.path("failed").asLong(0), item.path("compensated").asLong(0),
          item.path("cancelled").asLong(0)));
    }
    return counts;
  }
}
