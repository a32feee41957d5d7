package dev.baton.runtime.http;

import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.contract.BatonDuration;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.BatchStartRequest;
import dev.baton.httpapi.BatchStartResponse;
import dev.baton.httpapi.CancelRequest;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.InstanceList;
import dev.baton.httpapi.InstanceQuery;
import dev.baton.httpapi.RequestBody;
import dev.baton.httpapi.StartRequest;
import dev.baton.runtime.core.InstanceStatus;
import dev.baton.runtime.definitions.Startability;
import dev.baton.runtime.definitions.WorkflowWatcher;
import dev.baton.runtime.engine.InstanceService;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.StepStore;
import io.javalin.http.Context;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** The instance endpoints of docs/design.md#interfaces. */
final class InstanceRoutes {

  static final int DEFAULT_LIMIT = InstanceQuery.DEFAULT_LIMIT;
  static final int MAX_LIMIT = InstanceQuery.MAX_LIMIT;
  static final int MAX_SIGNAL = ApiPaths.MAX_SIGNAL_NAME;

  private final Database database;
  private final InstanceStore instances;
  private final InstanceDocuments documents;
  private final InstanceService service;
  private final WorkflowWatcher workflows;
  private final boolean requireReady;
  private final long maxRequestBytes;
  private final RuntimeMetrics metrics;
  private final ApiSecurity security;
  private final InstanceWaits waits;

  InstanceRoutes(Database database, InstanceStore instances, StepStore steps, InstanceService service,
      WorkflowWatcher workflows, boolean requireReady, long maxRequestBytes, RuntimeMetrics metrics,
      ApiSecurity security, InstanceWaits waits) {
    this.waits = waits;
    this.database = database;
    this.instances = instances;
    this.security = security;
    this.documents = new InstanceDocuments(database, instances, steps);
    this.service = service;
    this.workflows = workflows;
    this.requireReady = requireReady;
    this.maxRequestBytes = maxRequestBytes;
    this.metrics = metrics;
  }

  /** {@code POST /api/v1/namespaces/{ns}/workflows/{name}/instances}: 201 new, 200 when the business key exists. */
  void start(Context ctx) throws SQLException {
    String ns = ctx.pathParam("ns");
    String name = ctx.pathParam("name");
    StartRequest request = StartRequest.parse(body(ctx));
    Workflow workflow = startable(ns, name);
    InstanceService.Started started;
    // The request's span begins (or continues, with the caller's traceparent) the instance's trace.
    Span span = service.tracing().startRequest(requestTraceHeaders(ctx), ns, name);
    try (Scope current = span.makeCurrent()) {
      started = service.start(ns, name, workflow.getSpec(), request.businessKey(), Json.write(request.input()),
          security.actor(ctx));
    } catch (InstanceService.FirstCommandTooLarge e) {
      // Nothing was created: an instance whose first command cannot be sent would only fail at once.
      span.setStatus(StatusCode.ERROR, e.getMessage());
      throw ApiError.tooLarge("the instance was not started: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      span.setStatus(StatusCode.ERROR, e.getMessage());
      throw ApiError.conflict("Workflow " + ns + "/" + name + " cannot be run: " + e.getMessage());
    } finally {
      span.end();
    }
    if (started.created()) {
      metrics.instanceStarted(ns, name);
    }
    respond(ctx, started.created() ? 201 : 200,
        InstanceJson.detail(started.current(), started.steps(), started.audit()));
  }

  /**
   * {@code POST /api/v1/namespaces/{ns}/workflows/{name}/instances/batch}: up to 1,000 starts in one transaction,
   * {@code 200 {"results": [{"id", "status", "created"}]}} in the order given, idempotent per business key. Each
   * instance begins a trace of its own.
   */
  void startBatch(Context ctx) throws SQLException {
    String ns = ctx.pathParam("ns");
    String name = ctx.pathParam("name");
    BatchStartRequest request = BatchStartRequest.parse(body(ctx));
    Workflow workflow = startable(ns, name);
    List<InstanceService.StartItem> items = request.instances().stream()
        .map(s -> new InstanceService.StartItem(s.businessKey(), Json.write(s.input()))).toList();
    List<InstanceService.BatchStarted> started;
    try {
      started = service.startAll(ns, name, workflow.getSpec(), items, security.actor(ctx));
    } catch (InstanceService.FirstCommandTooLarge e) {
      throw ApiError.tooLarge("no instance of the batch was started: instances[" + e.item() + "] (businessKey '"
          + e.businessKey() + "'): " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw ApiError.conflict("Workflow " + ns + "/" + name + " cannot be run: " + e.getMessage());
    }
    List<BatchStartResponse.Result> results = new ArrayList<>(started.size());
    for (InstanceService.BatchStarted s : started) {
      if (s.created()) {
        metrics.instanceStarted(ns, name);
      }
      results.add(new BatchStartResponse.Result(s.id().toString(), s.status().name(), s.created()));
    }
    respond(ctx, 200, new BatchStartResponse(results));
  }

  /**
   * The Workflow instances may start from: known (else 404), not being deleted and not refused by the operator (else
   * 409).
   */
  private Workflow startable(String ns, String name) {
    Workflow workflow = workflows.find(ns, name).orElseThrow(() -> ApiError.notFound(
        "no Workflow '" + name + "' in namespace '" + ns + "'" + (workflows.watches(ns) ? "" : " (namespace not watched)")));
    Startability.refusal(workflow, requireReady).ifPresent(why -> {
      throw ApiError.conflict(why);
    });
    return workflow;
  }

  private static Map<String, Object> requestTraceHeaders(Context ctx) {
    Map<String, Object> headers = new HashMap<>();
    for (String name : List.of("traceparent", "tracestate")) {
      String value = ctx.header(name);
      if (value != null) {
        headers.put(name, value);
      }
    }
    return headers;
  }

  /**
   * {@code GET /api/v1/instances/{id}}; with {@code ?wait=30s} (at most {@link ApiPaths#MAX_WAIT}, else 400), the
   * answer comes as soon as the instance has ended, or after the wait with its current state. A wait holds no server
   * thread and no database connection ({@link InstanceWaits}).
   */
  void get(Context ctx) throws SQLException {
    UUID id = instanceId(ctx);
    Duration wait = waitParam(ctx.queryParam(ApiPaths.WAIT));
    if (wait == null) {
      respond(ctx, 200, detail(id));
      return;
    }
    CompletableFuture<Boolean> ended = waits.untilEnded(id, wait); // before the read: an end after it is seen
    InstanceDocument now;
    try {
      now = detail(id);
    } catch (SQLException | RuntimeException e) {
      ended.complete(false);
      throw e;
    }
    if (now.finished()) {
      ended.complete(true);
      respond(ctx, 200, now);
      return;
    }
    ctx.future(() -> ended.thenApplyAsync(done -> {
      try {
        return detail(id);
      } catch (SQLException e) {
        throw new CompletionException(e);
      }
    }, waits.answers()).thenAccept(document -> respond(ctx, 200, document)));
  }

  /** {@code GET /api/v1/namespaces/{ns}/workflows/{name}/instances?status=&businessKey=&limit=}, newest first. */
  void list(Context ctx) throws SQLException {
    String ns = ctx.pathParam("ns");
    String name = ctx.pathParam("name");
    InstanceStatus status = statusParam(ctx.queryParam("status"));
    String businessKey = ctx.queryParam("businessKey");
    int limit = limitParam(ctx.queryParam("limit"));
    List<InstanceRecord> found = database.inTransaction(c -> instances.list(c, ns, name, status, businessKey, limit));
    if (found.isEmpty() && workflows.find(ns, name).isEmpty()) {
      throw ApiError.notFound("no Workflow '" + name + "' in namespace '" + ns + "' and no instances of it");
    }
    respond(ctx, 200, InstanceList.of(found.stream().map(InstanceJson::summary).toList()));
  }

  /**
   * {@code GET /api/v1/instances?namespace=&workflow=&status=&businessKeyPrefix=&step=&errorCode=&createdAfter=
   * &createdBefore=&limit=&cursor=}: newest first, a page at a time, with the cursor of the next page when there is
   * one.
   */
  void search(Context ctx) throws SQLException {
    InstanceQuery q = InstanceQuery.parse(ctx.queryParamMap().keySet(), ctx::queryParam); // InvalidRequest: 400
    InstanceStore.Search search = new InstanceStore.Search(q.namespace(), q.workflow(),
        q.status() == null ? null : InstanceStatus.valueOf(q.status()), q.businessKeyPrefix(), q.step(),
        q.errorCode(), q.createdAfter(), q.createdBefore(), q.cursor() == null ? null : q.cursor().createdAt(),
        q.cursor() == null ? null : q.cursor().id(), q.limit() + 1); // one more: is there a next page?
    List<InstanceRecord> found = database.inTransaction(c -> instances.search(c, search));
    List<InstanceRecord> page = found.subList(0, Math.min(q.limit(), found.size()));
    InstanceRecord last = page.isEmpty() ? null : page.get(page.size() - 1);
    String next = found.size() > q.limit() ? new InstanceQuery.Cursor(last.createdAt(), last.id()).encode() : null;
    respond(ctx, 200, InstanceList.page(page.stream().map(InstanceJson::summary).toList(), next));
  }

  /** {@code POST /api/v1/instances/{id}/cancel}, with an optional {@code {"compensate": true}}. */
  void cancel(Context ctx) throws SQLException {
    UUID id = instanceId(ctx);
    CancelRequest request = CancelRequest.parse(body(ctx));
    settle(ctx, id, service.cancel(id, request.compensate(), security.actor(ctx)), 200);
  }

  /** {@code POST /api/v1/instances/{id}/retry}. */
  void retry(Context ctx) throws SQLException {
    UUID id = instanceId(ctx);
    settle(ctx, id, service.retry(id, security.actor(ctx)), 200);
  }

  /**
   * {@code POST /api/v1/instances/{id}/signals/{signal}} with any JSON body: 202, stored for a wait on that signal
   * (consumed now if one is waiting); 404 for an unknown instance, 409 for one that has finished.
   */
  void signal(Context ctx) throws SQLException {
    UUID id = instanceId(ctx);
    String signal = ctx.pathParam("signal");
    if (signal.isBlank() || signal.length() > MAX_SIGNAL) {
      throw ApiError.badRequest("a signal name is 1 to " + MAX_SIGNAL + " characters");
    }
    String json = Json.write(RequestBody.read(body(ctx), "the signal's body as JSON, e.g. {\"by\": \"ann\"}"));
    settle(ctx, id, service.signal(id, signal, json, ctx.header(IdempotentRequests.HEADER), security.actor(ctx)),
        202);
  }

  private void settle(Context ctx, UUID id, InstanceService.Result result, int status) {
    if (result instanceof InstanceService.Result.NotFound) {
      throw notFound(id);
    }
    if (result instanceof InstanceService.Result.Conflict c) {
      throw ApiError.conflict(c.reason());
    }
    InstanceService.Result.Done done = (InstanceService.Result.Done) result;
    respond(ctx, status, InstanceJson.detail(done.instance(), done.steps(), done.audit()));
  }

  private InstanceDocument detail(UUID id) throws SQLException {
    return documents.detail(id).orElseThrow(() -> notFound(id));
  }

  private byte[] body(Context ctx) {
    return body(ctx, maxRequestBytes);
  }

  /** The request's body, or a 413 (the body read to its end and dropped) when it is over {@code max} bytes. */
  static byte[] body(Context ctx, long max) {
    long length = ctx.req().getContentLengthLong();
    if (length > max) {
      RefusedBody.discard(ctx.req(), length);
      throw ApiError.tooLarge("the body has " + length + " bytes; the limit is " + max);
    }
    return ctx.bodyAsBytes();
  }

  private static UUID instanceId(Context ctx) {
    String text = ctx.pathParam("id");
    try {
      UUID id = UUID.fromString(text);
      if (!id.toString().equalsIgnoreCase(text)) {
        throw new IllegalArgumentException(text);
      }
      return id;
    } catch (IllegalArgumentException e) {
      throw ApiError.badRequest("'" + text + "' is not an instance id (a UUID such as 3f2b8c1e-...)");
    }
  }

  private static ApiError notFound(UUID id) {
    return ApiError.notFound("no instance " + id);
  }

  private static InstanceStatus statusParam(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    return InstanceStatus.parse(text.trim()).orElseThrow(() -> ApiError.badRequest(
        "status '" + text + "' is not one of " + Arrays.toString(InstanceStatus.values())));
  }

  /** {@code ?wait=}: a Baton duration up to {@link ApiPaths#MAX_WAIT}; null when not asked. */
  static Duration waitParam(String text) {
    if (text == null) {
      return null;
    }
    Duration wait = null;
    try {
      wait = BatonDuration.parse(text.trim()).toDuration();
    } catch (IllegalArgumentException | ArithmeticException e) {
      // reported below
    }
    if (wait == null || wait.compareTo(ApiPaths.MAX_WAIT) > 0) {
      throw ApiError.badRequest("wait must be a duration from 1ms to " + ApiPaths.MAX_WAIT.toSeconds()
          + "s such as 30s or 500ms, got '" + text + "'; to wait longer, ask again");
    }
    return wait;
  }

  private static int limitParam(String text) {
    if (text == null || text.isBlank()) {
      return DEFAULT_LIMIT;
    }
    try {
      int limit = Integer.parseInt(text.trim());
      if (limit >= 1 && limit <= MAX_LIMIT) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw ApiError.badRequest("limit must be a whole number from 1 to " + MAX_LIMIT + ", got '" + text + "'");
  }

  static void respond(Context ctx, int status, Object json) {
    ctx.status(status).contentType("application/json").result(Json.writeBytes(json));
  }
}
