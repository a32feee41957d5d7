package dev.baton.httpapi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every operation of the runtime's HTTP API in one table: its method and path ({@link ApiPaths}), its parameters, the
 * type of its request body and of its answer for each status, and who may call it. The OpenAPI document
 * ({@value #DOCUMENT}, served at {@link ApiPaths#OPENAPI}) is generated from this table and the types it names; the
 * runtime's tests compare it with the routes the runtime registers, both ways.
 *
 * <p>Error answers are {@link ErrorBody}. Those every secured operation may give (401 without a valid token, 403 when
 * the token may not do it) and an unexpected 500 are added by the generator; the table lists each operation's own.
 */
public final class ApiOperations {

  /** Where the generated OpenAPI document is, on the classpath of whoever has this module. */
  public static final String DOCUMENT = "/dev/baton/httpapi/openapi.json";

  /** Who may call an operation. */
  public enum Access {
    /** Anyone who reaches the port: probes, and the API's own description. */
    OPEN,
    /** A bearer token, when the runtime is given tokens (or runs in Kubernetes mode); an API without tokens is open. */
    TOKEN,
    /** Open, unless the runtime has a read-only token: then either token ({@code /metrics}). */
    OPEN_UNLESS_READ_TOKEN
  }

  /**
   * A parameter: its name, whether it is in the path (always required) or the query (optional), what it means, and
   * the constraints of its value.
   */
  public record Parameter(String name, boolean inPath, String description, Value value) {}

  /**
   * The value of a parameter (a string unless {@code integer}), as plain constraints: {@code format}, one of
   * {@code allowed}, a length or a range; null where there is none.
   */
  public record Value(boolean integer, String format, List<String> allowed, Integer minLength, Integer maxLength,
      Integer minimum, Integer maximum, Integer byDefault) {

    static Value string() {
      return new Value(false, null, null, 1, null, null, null, null);
    }

    static Value string(String format) {
      return new Value(false, format, null, null, null, null, null, null);
    }

    static Value length(int min, int max) {
      return new Value(false, null, null, min, max, null, null, null);
    }

    static Value oneOf(Set<String> allowed) {
      return new Value(false, null, List.copyOf(new TreeSet<>(allowed)), null, null, null, null, null);
    }

    static Value integer(int minimum, int maximum, int byDefault) {
      return new Value(true, null, null, null, null, minimum, maximum, byDefault);
    }
  }

  /**
   * One answer: its status, what it means, and its JSON body's type; {@code mediaType} for an answer that is not JSON
   * (its body then has no schema).
   */
  public record Response(int status, String description, Class<?> body, String mediaType) {

    static Response json(int status, String description, Class<?> body) {
      return new Response(status, description, body, "application/json");
    }

    static Response error(int status, String description) {
      return json(status, description, ErrorBody.class);
    }
  }

  /**
   * One operation.
   *
   * @param id its {@code operationId}: what a generated client names the method
   * @param request the type of its JSON body, or null for none
   * @param requestRequired whether the body must be sent (a cancel's is optional)
   * @param idempotencyKey whether it takes an {@code Idempotency-Key} header (a repeat answers what the first did)
   */
  public record Operation(String method, String path, String id, String summary, Access access,
      List<Parameter> parameters, Class<?> request, boolean requestRequired, boolean idempotencyKey,
      List<Response> responses) {

    /** The route as the runtime's router and its access table name it: {@code "GET /api/v1/instances/{id}"}. */
    public String route() {
      return method + " " + path;
    }

    /** The names of the path's parameters, in order ({@code {ns}}, {@code {name}}, ...). */
    public List<String> pathParameters() {
      List<String> names = new ArrayList<>();
      Matcher m = TEMPLATE.matcher(path);
      while (m.find()) {
        names.add(m.group(1));
      }
      return names;
    }
  }

  private static final Pattern TEMPLATE = Pattern.compile("\\{([^}]+)}");

  // Path parameters.
  private static final Parameter NS = path("ns", "The Workflow's namespace.", Value.string());
  private static final Parameter NAME = path("name", "The Workflow's name.", Value.string());
  private static final Parameter INSTANCE_ID = path("id", "The instance's id.", Value.string("uuid"));
  private static final Parameter OPERATION_ID = path("id", "The bulk operation's id.", Value.string("uuid"));
  private static final Parameter SIGNAL = path("signal", "The signal's name, as the Workflow's wait step names it.",
      Value.length(1, ApiPaths.MAX_SIGNAL_NAME));

  // Answers most operations share.
  private static final Response INSTANCE = Response.json(200, "The instance, in full.", InstanceDocument.class);
  private static final Response BAD_REQUEST = Response.error(400, "The request is not valid: the message names the"
      + " field or parameter and what to send.");
  private static final Response NO_INSTANCE = Response.error(404, "No such instance.");
  private static final Response NO_WORKFLOW = Response.error(404, "No such Workflow.");
  private static final Response TOO_LARGE = Response.error(413, "The body, or a command the request would send, is"
      + " over its limit.");
  private static final Response REUSED_KEY = Response.error(422, "The Idempotency-Key was used for another request.");
  private static final Response UNAVAILABLE = Response.error(503, "The database is unavailable for now: try again.");

  /** Every operation the runtime serves (the web UI's pages under {@code /ui/} are not part of the API). */
  public static final List<Operation> ALL = List.of(
      new Operation("POST", ApiPaths.INSTANCES, "startInstance", "Start an instance of a Workflow, once per business"
          + " key: a second start with the same key answers the instance it started (200).", Access.TOKEN,
          List.of(NS, NAME), StartRequest.class, true, true, List.of(
              Response.json(201, "Started.", InstanceDocument.class),
              Response.json(200, "An instance with this business key exists: that one.", InstanceDocument.class),
              BAD_REQUEST, NO_WORKFLOW,
              Response.error(409, "The Workflow cannot run now (being deleted, or refused by the operator)."),
              TOO_LARGE, REUSED_KEY, UNAVAILABLE)),
      new Operation("POST", ApiPaths.BATCH, "startInstances", "Start up to " + BatchStartRequest.MAX_INSTANCES
          + " instances in one transaction, each once per business key; one bad item refuses the whole batch.",
          Access.TOKEN, List.of(NS, NAME), BatchStartRequest.class, true, true, List.of(
              Response.json(200, "What was done for each item, in the order given.", BatchStartResponse.class),
              BAD_REQUEST, NO_WORKFLOW, Response.error(409, "The Workflow cannot run now."), TOO_LARGE, REUSED_KEY,
              UNAVAILABLE)),
      new Operation("GET", ApiPaths.INSTANCES, "listInstances", "A Workflow's instances, newest first (list form).",
          Access.TOKEN, List.of(NS, NAME,
              query("status", "Only instances with this status.", Value.oneOf(InstanceQuery.STATUSES)),
              query("businessKey", "Only the instance with this business key.", Value.string()),
              query("limit", "How many at most.", Value.integer(1, InstanceQuery.MAX_LIMIT,
                  InstanceQuery.DEFAULT_LIMIT))),
          null, false, false, List.of(
              Response.json(200, "The instances (list form).", InstanceList.class),
              BAD_REQUEST, Response.error(404, "No such Workflow, and no instances of it."), UNAVAILABLE)),
      new Operation("GET", ApiPaths.SEARCH, "searchInstances", "Instances across Workflows and namespaces, newest"
          + " first, a page at a time; an unknown parameter is refused.", Access.TOKEN, List.of(
              query("namespace", "Only in this namespace (else every namespace the caller may list).",
                  Value.string()),
              query("workflow", "Only of this Workflow.", Value.string()),
              query("status", "Only with this status.", Value.oneOf(InstanceQuery.STATUSES)),
              query("businessKeyPrefix", "Only those whose business key begins with this.", Value.string()),
              query("step", "Only those at this step, or whose last error is there.", Value.string()),
              query("errorCode", "Only those whose last error has this code.", Value.string()),
              query("createdAfter", "Only those created at or after this instant (RFC 3339).",
                  Value.string("date-time")),
              query("createdBefore", "Only those created before this instant (RFC 3339).",
                  Value.string("date-time")),
              query("limit", "How many at most on this page.", Value.integer(1, InstanceQuery.MAX_LIMIT,
                  InstanceQuery.DEFAULT_LIMIT)),
              query("cursor", "The nextCursor of the page before, as it was given.", Value.string())),
          null, false, false, List.of(
              Response.json(200, "A page of instances (list form), and the cursor of the next one if any.",
                  InstanceList.class),
              BAD_REQUEST, UNAVAILABLE)),
      new Operation("GET", ApiPaths.INSTANCE, "getInstance", "An instance in full; with wait, answered once it has"
          + " ended or when the wait is over.", Access.TOKEN, List.of(INSTANCE_ID,
              query(ApiPaths.WAIT, "Wait up to this long for the instance to end: a duration such as 30s or 500ms,"
                  + " at most " + ApiPaths.MAX_WAIT.toSeconds() + "s.", Value.string())),
          null, false, false, List.of(INSTANCE, BAD_REQUEST, NO_INSTANCE, UNAVAILABLE)),
      new Operation("POST", ApiPaths.CANCEL, "cancelInstance", "Cancel an instance, compensating its completed steps"
          + " first if asked.", Access.TOKEN, List.of(INSTANCE_ID), CancelRequest.class, false, true, List.of(
              Response.json(200, "The instance, cancelled (or compensating).", InstanceDocument.class),
              BAD_REQUEST, NO_INSTANCE, Response.error(409, "The instance cannot be cancelled (it has ended)."),
              REUSED_KEY, UNAVAILABLE)),
      new Operation("POST", ApiPaths.RETRY, "retryInstance", "Retry a failed instance from the step that failed.",
          Access.TOKEN, List.of(INSTANCE_ID), null, false, true, List.of(
              Response.json(200, "The instance, running again.", InstanceDocument.class),
              BAD_REQUEST, NO_INSTANCE, Response.error(409, "The instance cannot be retried (it has not failed)."),
              REUSED_KEY, UNAVAILABLE)),
      new Operation("POST", ApiPaths.SIGNAL, "signalInstance", "Send a signal, with any JSON as its body: consumed"
          + " by the wait for it, now or when the instance gets there.", Access.TOKEN, List.of(INSTANCE_ID, SIGNAL),
          Object.class, true, true, List.of(
              Response.json(202, "Stored for the instance.", InstanceDocument.class),
              BAD_REQUEST, NO_INSTANCE, Response.error(409, "The instance has ended, or holds 100 signals no wait"
                  + " has consumed."), TOO_LARGE, REUSED_KEY,
              UNAVAILABLE)),
      new Operation("POST", ApiPaths.OPERATIONS, "createOperation", "Act on every instance a search finds (cancel,"
          + " retry or signal), or count them with dryRun.", Access.TOKEN, List.of(), OperationRequest.class, true,
          true, List.of(
              Response.json(202, "Accepted: the operation runs in the background; follow it by its id.",
                  OperationDocument.class),
              Response.json(200, "A dry run: what the filter finds, nothing changed.", OperationDocument.class),
              BAD_REQUEST, TOO_LARGE, REUSED_KEY, UNAVAILABLE)),
      new Operation("GET", ApiPaths.OPERATION, "getOperation", "A bulk operation and how far it has got.",
          Access.TOKEN, List.of(OPERATION_ID), null, false, false, List.of(
              Response.json(200, "The operation.", OperationDocument.class),
              BAD_REQUEST, Response.error(404, "No such operation."), UNAVAILABLE)),
      new Operation("GET", ApiPaths.COUNTS, "getCounts", "Instances per Workflow and status, and where each schedule"
          + " stands (the operator's live columns).", Access.TOKEN, List.of(), null, false, false, List.of(
              Response.json(200, "The counts.", CountsResponse.class))),
      new Operation("GET", ApiPaths.ROUTES, "getRoutes", "The result bindings the revisions with unfinished instances"
          + " need (for the operator).", Access.TOKEN, List.of(), null, false, false, List.of(
              Response.json(200, "The bindings.", RoutesResponse.class),
              Response.error(503, "The runtime has not read its Workflows yet."))),
      new Operation("GET", ApiPaths.WHOAMI, "whoAmI", "Who the caller is as the runtime sees the token, and how"
          + " callers are checked.", Access.TOKEN, List.of(), null, false, false, List.of(
              Response.json(200, "The caller.", WhoAmI.class))),
      new Operation("GET", ApiPaths.HEALTH, "getHealth", "Readiness: the database, the broker and the consumer"
          + " lanes.", Access.OPEN, List.of(), null, false, false, List.of(
              Response.json(200, "Ready.", Health.class),
              Response.json(503, "Not ready: which part is down.", Health.class))),
      new Operation("GET", ApiPaths.LIVE, "getLiveness", "Liveness: the process answers.", Access.OPEN, List.of(),
          null, false, false, List.of(Response.json(200, "Alive.", Liveness.class))),
      new Operation("GET", ApiPaths.METRICS, "getMetrics", "Prometheus metrics (OpenMetrics when asked for it).",
          Access.OPEN_UNLESS_READ_TOKEN, List.of(), null, false, false, List.of(
              new Response(200, "The metrics, in the Prometheus text format.", null, "text/plain"))),
      new Operation("GET", ApiPaths.OPENAPI, "getOpenApi", "This API described in OpenAPI 3.1.", Access.OPEN,
          List.of(), null, false, false, List.of(
              new Response(200, "The OpenAPI document.", null, "application/json"))));

  private ApiOperations() {}

  /** The routes of {@link #ALL}, as {@link Operation#route()} names them. */
  public static Set<String> routes() {
    Set<String> routes = new TreeSet<>();
    ALL.forEach(op -> routes.add(op.route()));
    return routes;
  }

  /** The operations by route. */
  public static Map<String, Operation> byRoute() {
    Map<String, Operation> map = new LinkedHashMap<>();
    ALL.forEach(op -> map.put(op.route(), op));
    return map;
  }

  private static Parameter path(String name, String description, Value value) {
    return new Parameter(name, true, description, value);
  }

  private static Parameter query(String name, String description, Value value) {
    return new Parameter(name, false, description, value);
  }
}
