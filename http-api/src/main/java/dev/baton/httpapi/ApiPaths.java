package dev.baton.httpapi;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Every path of the runtime's HTTP API (docs/design.md#interfaces): the route templates the runtime serves, and the
 * same paths filled in, percent-encoded, for a client.
 */
public final class ApiPaths {

  /** Starts (POST) and the list of a Workflow's instances (GET). */
  public static final String INSTANCES = "/api/v1/namespaces/{ns}/workflows/{name}/instances";
  public static final String BATCH = INSTANCES + "/batch";
  public static final String INSTANCE = "/api/v1/instances/{id}";
  /** The search of instances across Workflows and namespaces, newest first, a page at a time ({@link InstanceQuery}). */
  public static final String SEARCH = "/api/v1/instances";
  /**
   * The query parameter of {@link #INSTANCE} that waits for the instance to end: a duration such as {@code 30s}, at
   * most {@link #MAX_WAIT}; the answer comes as soon as it has ended, or after the wait with its current state.
   */
  public static final String WAIT = "wait";
  /** The longest {@link #WAIT} the runtime takes (longer is a 400): a long poll, asked again to wait longer. */
  public static final java.time.Duration MAX_WAIT = java.time.Duration.ofSeconds(60);
  public static final String CANCEL = INSTANCE + "/cancel";
  public static final String RETRY = INSTANCE + "/retry";
  public static final String SIGNAL = INSTANCE + "/signals/{signal}";
  /** The longest signal name the runtime takes, in the path or in a bulk operation. */
  public static final int MAX_SIGNAL_NAME = 253;
  /** Bulk operations: an action on every instance a search finds (POST), and one of them (GET). */
  public static final String OPERATIONS = "/api/v1/operations";
  public static final String OPERATION = OPERATIONS + "/{id}";
  /** Instances per Workflow and status, for the operator's live columns. */
  public static final String COUNTS = "/api/v1/counts";
  /** The result bindings the revisions with unfinished instances need, for the operator. */
  public static final String ROUTES = "/api/v1/routes";
  /** Who the caller is, as the runtime sees the token: for {@code baton login} and the UI's header. */
  public static final String WHOAMI = "/api/v1/whoami";
  /** Readiness: database, broker and consumer lanes. */
  public static final String HEALTH = "/healthz";
  /** Liveness: the process answers. */
  public static final String LIVE = "/livez";
  public static final String METRICS = "/metrics";
  /** This API described in OpenAPI 3.1 ({@link ApiOperations}). */
  public static final String OPENAPI = "/api/v1/openapi.json";

  private ApiPaths() {}

  public static String operation(String id) {
    return OPERATIONS + "/" + encode(id);
  }

  public static String instances(String namespace, String workflow) {
    return "/api/v1/namespaces/" + encode(namespace) + "/workflows/" + encode(workflow) + "/instances";
  }

  public static String batch(String namespace, String workflow) {
    return instances(namespace, workflow) + "/batch";
  }

  /** The list of a Workflow's instances, filtered. */
  public static String instances(String namespace, String workflow, String status, String businessKey, int limit) {
    StringBuilder q = new StringBuilder("?limit=").append(limit);
    if (status != null) {
      q.append("&status=").append(encode(status));
    }
    if (businessKey != null) {
      q.append("&businessKey=").append(encode(businessKey));
    }
    return instances(namespace, workflow) + q;
  }

  public static String instance(UUID id) {
    return "/api/v1/instances/" + id;
  }

  /** An instance by an id as a user typed it (checked by the runtime, which answers 400 for a bad one). */
  public static String instance(String id) {
    return "/api/v1/instances/" + encode(id);
  }

  /**
   * An instance, answered once it has ended or after {@code wait} (written as a Baton duration: {@code 30s},
   * {@code 1500ms}).
   */
  public static String instance(String id, java.time.Duration wait) {
    return instance(id) + "?" + WAIT + "=" + wait.toMillis() + "ms";
  }

  public static String cancel(String id) {
    return instance(id) + "/cancel";
  }

  public static String retry(String id) {
    return instance(id) + "/retry";
  }

  public static String signal(String id, String signal) {
    return instance(id) + "/signals/" + encode(signal);
  }

  /** A path segment or query value, percent-encoded. */
  public static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
