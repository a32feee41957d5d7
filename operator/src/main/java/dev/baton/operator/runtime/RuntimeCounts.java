package dev.baton.operator.runtime;

import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.CountsResponse;
import dev.baton.operator.runtime.RuntimeApi.Unavailable;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads every Workflow's instance counts from the runtime in one request: {@code GET {runtimeUrl}/api/v1/counts},
 * answered with a {@link CountsResponse}. When they cannot be read, the last ones stand.
 */
public final class RuntimeCounts {

  public static final String PATH = ApiPaths.COUNTS;

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
    CountsResponse answer = RuntimeApi.read(body, CountsResponse.class, "counts");
    if (answer.items() == null) {
      throw new Unavailable("the runtime's counts have no 'items' list");
    }
    Map<ResourceID, InstanceCounts> counts = new HashMap<>();
    for (CountsResponse.WorkflowCounts item : answer.items()) {
      if (item.namespace() == null || item.workflow() == null) {
        continue;
      }
      counts.put(new ResourceID(item.workflow(), item.namespace()), new InstanceCounts(item.running(),
          item.succeeded(), item.failed(), item.compensated(), item.cancelled(), item.schedules()));
    }
    return counts;
  }
}
