package dev.baton.runtime.http.auth;

import dev.baton.deadletters.DeadLetterQueue;
import dev.baton.runtime.http.auth.AccessTable.Need;
import java.sql.SQLException;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * The one place that decides who may do what in Kubernetes mode (docs/design.md#security), for the API and the web
 * UI alike: a bearer token is checked with a TokenReview ({@link Authenticator}), the route's {@link AccessTable}
 * rule is filled in with the namespace of what the request names ({@link Targets}), and RBAC is asked with a
 * SubjectAccessReview ({@link Authorizer}). No token or a bad one is a 401, a refusal a 403 that names the verb, the
 * resource and the namespace; an API server that cannot be asked is a 503 ({@link ReviewUnavailable}), never a pass.
 */
public final class AccessGate {

  private final Authenticator authenticator;
  private final Authorizer authorizer;
  private final Targets targets;

  public AccessGate(Authenticator authenticator, Authorizer authorizer, Targets targets) {
    this.authenticator = authenticator;
    this.authorizer = authorizer;
    this.targets = targets;
  }

  /**
   * The caller a bearer token belongs to.
   *
   * @param token the token, or null when the request carried none
   * @throws AccessRefused 401 without a token or with one that is not valid
   * @throws ReviewUnavailable when the Kubernetes API cannot be asked
   */
  public Caller authenticate(String token) {
    if (token == null || token.isBlank()) {
      throw AccessRefused.noToken();
    }
    return authenticator.authenticate(token.trim()).orElseThrow(AccessRefused::invalidToken);
  }

  /**
   * Lets a request through or refuses it: what its route needs, asked for this caller. A route for each namespace of
   * a page ({@link AccessRule.Scope#EACH_NAMESPACE}) passes here; the page asks per namespace ({@link #allows}).
   *
   * @param pathParam the request's path parameters by name
   * @param formParam its form fields or query parameters by name (the dead-letter queue of a replay, a search's
   *     namespace)
   * @return the question RBAC allowed, or null (open, or asked by the page)
   * @throws AccessRefused 403 when RBAC does not allow it, 400/404 when what it names is not there
   */
  public AccessRequest check(Need need, Caller caller, Function<String, String> pathParam,
      Function<String, String> formParam) throws SQLException {
    if (need instanceof Need.Unlisted unlisted) {
      throw AccessRefused.unlisted(unlisted.route());
    }
    if (!(need instanceof Need.Allowed allowed)) {
      return null; // open, or signed in (the caller was authenticated): nothing to ask
    }
    AccessRequest question = question(allowed.rule(), pathParam, formParam);
    if (question != null) {
      require(caller, question);
    }
    return question;
  }

  /** @throws AccessRefused 403 unless RBAC allows the caller this */
  public void require(Caller caller, AccessRequest request) {
    if (!authorizer.allows(caller, request)) {
      throw AccessRefused.forbidden(caller.user(), request);
    }
  }

  /** Whether RBAC allows the caller this (a page showing only what it may). */
  public boolean allows(Caller caller, AccessRequest request) {
    return authorizer.allows(caller, request);
  }

  /** The question a rule asks of a request; null for a page that asks per namespace. */
  AccessRequest question(AccessRule rule, Function<String, String> pathParam, Function<String, String> formParam)
      throws SQLException {
    return switch (rule.scope()) {
      case WORKFLOW -> rule.in(pathParam.apply("ns"), pathParam.apply("name"));
      case CLUSTER -> rule.in("", null);
      case EACH_NAMESPACE -> null;
      case QUERY -> {
        String namespace = formParam.apply("namespace");
        yield namespace == null || namespace.isBlank() ? rule.in("", null)
            : rule.in(namespace.trim(), formParam.apply("workflow"));
      }
      case INSTANCE -> {
        UUID id = instanceId(pathParam.apply("id"));
        Targets.Target workflow = targets.workflowOf(id)
            .orElseThrow(() -> AccessRefused.notFound("no instance " + id));
        yield rule.in(workflow.namespace(), workflow.name());
      }
      case SERVICE -> {
        String queue = formParam.apply("queue");
        yield onDeadLetters(rule, DeadLetterQueue.parse(queue)
            .orElseThrow(() -> AccessRefused.badRequest(DeadLetterQueue.notADeadLetterQueue(String.valueOf(queue)))));
      }
    };
  }

  /**
   * The question of a rule about a dead-letter queue: in the namespace of the WorkerService that provides its
   * service, cluster-wide when there is none to be found (the runtime's own parking lots, {@code q.dlx.orchestrator.*},
   * belong to no WorkerService).
   */
  public AccessRequest onDeadLetters(AccessRule rule, DeadLetterQueue queue) {
    Optional<Targets.Target> owner = queue.isOrchestrator() ? Optional.empty() : targets.serviceOwner(queue.service());
    return owner.map(o -> rule.in(o.namespace(), o.name())).orElseGet(() -> rule.in("", null));
  }

  /** The question of a page for one namespace ({@link AccessRule.Scope#EACH_NAMESPACE}). */
  public static AccessRequest inNamespace(AccessRule rule, String namespace) {
    return rule.in(namespace, null);
  }

  private static UUID instanceId(String text) {
    try {
      UUID id = UUID.fromString(String.valueOf(text));
      if (id.toString().equalsIgnoreCase(text)) {
        return id;
      }
    } catch (IllegalArgumentException e) {
      // below
    }
    throw AccessRefused.badRequest("'" + text + "' is not an instance id (a UUID such as 3f2b8c1e-...)");
  }
}
