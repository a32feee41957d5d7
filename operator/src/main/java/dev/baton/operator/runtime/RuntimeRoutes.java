package dev.baton.operator.runtime;

import dev.baton.contract.EventResult;
import dev.baton.contract.Names;
import dev.baton.contract.topology.BindingSpec;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.RoutesResponse;
import dev.baton.operator.model.EventExchanges;
import dev.baton.operator.runtime.RuntimeApi.Unavailable;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads from the runtime which result bindings the revisions with unfinished instances need: {@code GET
 * {runtimeUrl}/api/v1/routes}, answered with a {@link RoutesResponse}. The operator binds them
 * to {@code q.orchestrator.W} besides the current spec's, so an edit never strands an instance of an older revision
 * (docs/design.md#runtime-semantics, Versioning). Only bindings of the form the planner makes are taken — a
 * service's event exchange and {@code <entity>.<action>.<result>} — so the runtime's answer can bind nothing else.
 */
public final class RuntimeRoutes {

  public static final String PATH = ApiPaths.ROUTES;
  private static final Logger LOG = LoggerFactory.getLogger(RuntimeRoutes.class);

  private final RuntimeApi runtime;

  public RuntimeRoutes(RuntimeApi runtime) {
    this.runtime = runtime;
  }

  /**
   * The bindings every Workflow with unfinished instances needs; a Workflow not mentioned needs none beyond its spec.
   *
   * @throws Unavailable when the runtime cannot be reached, has not read them yet (503), or answers
   *     with something unreadable
   */
  public Map<ResourceID, Set<BindingSpec>> fetch() {
    return parse(runtime.get(PATH));
  }

  static Map<ResourceID, Set<BindingSpec>> parse(String body) {
    RoutesResponse answer = RuntimeApi.read(body, RoutesResponse.class, "routes");
    if (answer.items() == null) {
      throw new Unavailable("the runtime's routes have no 'items' list");
    }
    Map<ResourceID, Set<BindingSpec>> routes = new HashMap<>();
    for (RoutesResponse.WorkflowRoutes item : answer.items()) {
      String namespace = item.namespace();
      String workflow = item.workflow();
      if (namespace == null || workflow == null || !Names.isValidToken(workflow)) {
        continue;
      }
      Set<BindingSpec> bindings = new LinkedHashSet<>();
      for (RoutesResponse.Binding b : item.bindings() == null ? List.<RoutesResponse.Binding>of() : item.bindings()) {
        String exchange = b.exchange() == null ? "" : b.exchange();
        String key = b.routingKey() == null ? "" : b.routingKey();
        if (isResultBinding(exchange, key)) {
          bindings.add(new BindingSpec(exchange, Names.orchestratorQueue(workflow), key));
        } else {
          LOG.warn("Ignoring a route of Workflow {}/{} from the runtime that is not a result binding: {} '{}'",
              namespace, workflow, exchange, key);
        }
      }
      routes.put(new ResourceID(workflow, namespace), Set.copyOf(bindings));
    }
    return routes;
  }

  /** {@code S.event.topic.ex} and {@code <entity>.<action>.<result>}, each part a valid name. */
  static boolean isResultBinding(String exchange, String routingKey) {
    if (EventExchanges.serviceOf(exchange).isEmpty()) {
      return false;
    }
    String[] parts = routingKey.split("\\.", -1);
    return parts.length == 3 && Names.isValidToken(parts[0]) && Names.isValidToken(parts[1])
        && java.util.Arrays.stream(EventResult.values()).anyMatch(r -> r.key().equals(parts[2]));
  }
}
