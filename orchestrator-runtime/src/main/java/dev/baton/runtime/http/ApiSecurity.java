package dev.baton.runtime.http;

import dev.baton.httpapi.WhoAmI;
import dev.baton.runtime.engine.AuditLog;
import dev.baton.runtime.http.auth.AccessGate;
import dev.baton.runtime.http.auth.AccessRefused;
import dev.baton.runtime.http.auth.AccessRequest;
import dev.baton.runtime.http.auth.AccessRule;
import dev.baton.runtime.http.auth.AccessTable;
import dev.baton.runtime.http.auth.AuthMode;
import dev.baton.runtime.http.auth.Caller;
import dev.baton.runtime.http.auth.ReviewUnavailable;
import dev.baton.runtime.store.Actor;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import java.util.Set;

/**
 * Who may call the API and the web UI, and who a request is for the audit (docs/design.md#security): the runtime's
 * own tokens ({@link ApiAuth}, {@code BATON_AUTH=token}) or Kubernetes tokens and RBAC ({@link AccessGate},
 * {@code BATON_AUTH=kubernetes}). Either way each request that gets through carries its {@link Caller}
 * ({@link #caller}), and {@link #actor} says who and from where.
 */
public final class ApiSecurity {

  /** The request attribute that holds the {@link Caller} once the request has been let through. */
  public static final String CALLER = "baton.caller";
  private static final String UI = "/ui";
  private static final Set<String> READS = Set.of("get", "list", "watch");

  private final ApiAuth tokens;
  private final AccessGate gate;
  private final boolean trustedProxy;

  private ApiSecurity(ApiAuth tokens, AccessGate gate, boolean trustedProxy) {
    this.tokens = tokens;
    this.gate = gate;
    this.trustedProxy = trustedProxy;
  }

  /** Token mode: the runtime's own tokens, or an open API without them. */
  public static ApiSecurity tokens(ApiAuth tokens, boolean trustedProxy) {
    return new ApiSecurity(tokens, null, trustedProxy);
  }

  /** Kubernetes mode: tokens checked with TokenReviews, access asked with SubjectAccessReviews. */
  public static ApiSecurity kubernetes(AccessGate gate, boolean trustedProxy) {
    return new ApiSecurity(null, gate, trustedProxy);
  }

  public AuthMode mode() {
    return gate != null ? AuthMode.KUBERNETES : AuthMode.TOKEN;
  }

  /** Token mode's tokens; null in Kubernetes mode. */
  public ApiAuth tokens() {
    return tokens;
  }

  /** Kubernetes mode's gate; null in token mode. */
  public AccessGate gate() {
    return gate;
  }

  /** The API's check of every request (the UI checks its own pages). */
  void register(RoutesConfig routes) {
    if (gate == null) {
      routes.before(tokens::check);
    } else {
      // After routing: the table is read with the template the router matched, so the two cannot disagree on a
      // path. A request that matches no route gets its 404 (or 405) without a check: it reaches nothing.
      routes.beforeMatched(this::checkKubernetes);
    }
  }

  /** For the start-up line: what is required, never a token. */
  String describe() {
    return gate == null ? tokens.describe()
        : "Kubernetes tokens (TokenReview) and RBAC (SubjectAccessReview) required";
  }

  private void checkKubernetes(Context ctx) throws Exception {
    String path = ctx.path();
    if (path.equals(UI) || path.startsWith(UI + "/")) {
      return; // the UI's own: a session cookie, a sign-in page, a 403 page
    }
    Endpoint endpoint = ctx.endpoints().matchedHttpEndpoint();
    AccessTable.Need need = endpoint == null ? new AccessTable.Need.Unlisted(ctx.method() + " " + path)
        : AccessTable.need(ctx.method().name(), endpoint.path);
    if (need instanceof AccessTable.Need.Open) {
      return;
    }
    try {
      String header = ctx.header("Authorization");
      Caller caller = gate.authenticate(header == null ? null : ApiAuth.bearer(header));
      ctx.attribute(CALLER, caller);
      gate.check(need, caller, ctx::pathParam, ctx::queryParam); // a search names its namespace in the query
    } catch (AccessRefused e) {
      if (e.challenge() != null) {
        ctx.header("WWW-Authenticate", e.challenge());
      }
      refusedWrite(ctx, e);
      throw ApiError.of(e.status(), e.code(), e.getMessage());
    } catch (ReviewUnavailable e) {
      throw ApiError.unavailable(e.getMessage());
    }
  }

  /**
   * A change RBAC refused goes into the audit's log as well (reads do not): who tried what, where. The line is the
   * caller's, who was known; a 401 has no one to name.
   */
  void refusedWrite(Context ctx, AccessRefused e) {
    AccessRequest r = e.request();
    if (r == null || READS.contains(r.verb())) {
      return;
    }
    AuditLog.write(new AuditLog.Line(r.verb(), AuditLog.Outcome.FORBIDDEN, actor(ctx), r.namespace(), r.name(),
        ctx.pathParamMap().get("id"), r.resourcePath()));
  }

  /**
   * In Kubernetes mode, asks RBAC for what a route can only tell once it has read its body (a bulk operation: the verb
   * of its action, in the namespace of its filter, or cluster-wide when it names none); in token mode the token was
   * checked already. Refused: the 403 (or 503) the table's checks give.
   */
  void require(Context ctx, String verb, String namespace, String workflow) {
    if (gate == null) {
      return;
    }
    AccessRequest question = new AccessRule(verb, AccessRule.Resource.INSTANCES, AccessRule.Scope.QUERY)
        .in(namespace == null ? "" : namespace, namespace == null ? null : workflow);
    try {
      gate.require(caller(ctx), question);
    } catch (AccessRefused e) {
      refusedWrite(ctx, e);
      throw ApiError.of(e.status(), e.code(), e.getMessage());
    } catch (ReviewUnavailable e) {
      throw ApiError.unavailable(e.getMessage());
    }
  }

  /** Who the request is (set when it was let through), or anonymous. */
  public static Caller caller(Context ctx) {
    Caller c = ctx.attribute(CALLER);
    return c == null ? Caller.ANONYMOUS : c;
  }

  /**
   * {@code GET /api/v1/whoami}: the caller as the runtime sees its token, and how callers are checked
   * ({@code kubernetes}, {@code token}, or {@code open} without tokens).
   */
  WhoAmI whoAmI(Context ctx) {
    Caller c = caller(ctx);
    String auth = gate != null ? AuthMode.KUBERNETES.wire() : tokens.open() ? "open" : AuthMode.TOKEN.wire();
    return new WhoAmI(c.user(), c.groups(), auth);
  }

  /** Who made the request and from where, for the audit. */
  public Actor actor(Context ctx) {
    return new Actor(caller(ctx).user(), ClientAddress.of(ctx, trustedProxy));
  }
}
