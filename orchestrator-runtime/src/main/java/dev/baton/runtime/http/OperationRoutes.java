package dev.baton.runtime.http;

import dev.baton.httpapi.OperationDocument;
import dev.baton.httpapi.OperationRequest;
import dev.baton.runtime.engine.BulkOperations;
import io.javalin.http.Context;
import java.sql.SQLException;
import java.util.UUID;

/**
 * {@code POST /api/v1/operations} and {@code GET /api/v1/operations/{id}}: bulk operations ({@link BulkOperations}).
 * In Kubernetes mode the verb RBAC is asked for is the action's, as for one instance (a cancel is {@code delete}, a
 * retry or a signal {@code update}, reading one {@code get}), in the namespace the filter names, or cluster-wide when
 * it names none: known only once the body is read, so asked here rather than by the table.
 */
final class OperationRoutes {

  private final BulkOperations operations;
  private final ApiSecurity security;
  private final long maxRequestBytes;

  OperationRoutes(BulkOperations operations, ApiSecurity security, long maxRequestBytes) {
    this.operations = operations;
    this.security = security;
    this.maxRequestBytes = maxRequestBytes;
  }

  void create(Context ctx) throws SQLException {
    OperationRequest request = OperationRequest.parse(InstanceRoutes.body(ctx, maxRequestBytes)); // bad: 400
    String verb = request.dryRun() ? "list" : request.action().equals("cancel") ? "delete" : "update";
    security.require(ctx, verb, request.filter().get("namespace"), request.filter().get("workflow"));
    OperationDocument created = operations.create(request, security.actor(ctx));
    InstanceRoutes.respond(ctx, request.dryRun() ? 200 : 202, created);
  }

  void get(Context ctx) throws SQLException {
    UUID id;
    try {
      id = UUID.fromString(ctx.pathParam("id"));
    } catch (IllegalArgumentException e) {
      throw ApiError.badRequest("'" + ctx.pathParam("id") + "' is not an operation id");
    }
    OperationDocument op = operations.find(id).orElseThrow(() -> ApiError.notFound("no operation " + id));
    security.require(ctx, "get", op.filter().get("namespace"), op.filter().get("workflow"));
    InstanceRoutes.respond(ctx, 200, op);
  }
}
