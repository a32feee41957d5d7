package dev.baton.runtime.ui;

import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.deadletters.DeadLetterQueue;
import dev.baton.deadletters.Replayer;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.InvalidRequest;
import dev.baton.httpapi.OperationDocument;
import dev.baton.httpapi.OperationRequest;
import dev.baton.runtime.definitions.SpecCodec;
import dev.baton.runtime.definitions.WorkflowWatcher;
import dev.baton.runtime.engine.AuditLog;
import dev.baton.runtime.engine.BulkOperations;
import dev.baton.runtime.http.ApiAuth.Access;
import dev.baton.runtime.http.ApiSecurity;
import dev.baton.runtime.http.InstanceDocuments;
import dev.baton.runtime.http.auth.AccessGate;
import dev.baton.runtime.http.auth.AccessRefused;
import dev.baton.runtime.http.auth.AccessRequest;
import dev.baton.runtime.http.auth.AccessRule;
import dev.baton.runtime.http.auth.AccessTable;
import dev.baton.runtime.http.auth.ReviewUnavailable;
import dev.baton.runtime.store.Actor;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.ScheduleStore;
import dev.baton.runtime.store.DefinitionStore;
import dev.baton.runtime.store.SqlErrors;
import dev.baton.runtime.ui.InstancePage.Cursor;
import dev.baton.runtime.ui.InstancesView.Query;
import dev.baton.runtime.ui.WorkflowBoard.Definition;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.io.IOException;
import java.io.InputStream;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web UI at {@code /ui/} (docs/design.md#web-ui): server-rendered pages over the same services and documents as
 * the HTTP API, a stylesheet and one small script served from the jar. Nothing is fetched from anywhere else.
 */
public final class WebUi {

  private static final Logger LOG = LoggerFactory.getLogger(WebUi.class);
  private static final String LIVE_HEADER = "X-Baton-Live";
  /** What a proxy that serves the UI under a prefix it strips may say that prefix in (UiPaths). */
  private static final String FORWARDED_PREFIX = "X-Forwarded-Prefix";
  private static final String ASSETS = "/dev/baton/runtime/ui/assets/";
  /** Pages are for people: no framing by other sites, nothing inline, nothing from elsewhere. */
  private static final String CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self';"
      + " form-action 'self'; frame-ancestors 'none'; base-uri 'self'"; // the pages' <base>: see UiPaths

  /** What the pages read and what the buttons call. */
  public record Parts(Database database, WorkflowWatcher workflows, InstanceDocuments documents,
      InstanceButtons buttons, DefinitionStore definitions, DeadLetterDesk deadLetters, TraceLink traces,
      BulkOperations operations, Supplier<List<ScheduleStore.Row>> schedules) {}

  private final Parts parts;
  private final Sessions sessions;
  private final ApiSecurity security;
  /** Kubernetes mode's gate: RBAC asked per page and per action; null in token mode. */
  private final AccessGate gate;
  private final Clock clock;
  private final UiQueries queries = new UiQueries();

  private WebUi(Parts parts, Sessions sessions, ApiSecurity security, Clock clock) {
    this.parts = parts;
    this.sessions = sessions;
    this.security = security;
    this.gate = security.gate();
    this.clock = clock;
  }

  /** Adds the UI's routes; {@code security} says who signs in and how (the API's own). */
  public static void register(RoutesConfig routes, Parts parts, ApiSecurity security) {
    Sessions sessions = security.gate() == null
        ? new TokenSessions(new UiAuth(security.tokens(), Clock.systemUTC()))
        : new KubernetesSessions(security.gate());
    WebUi ui = new WebUi(parts, sessions, security, Clock.systemUTC());
    routes.before(ui::guard);
    if (ui.gate != null) {
      routes.beforeMatched(ui::authorize); // once the route is known: what RBAC is asked (AccessTable)
    }
    routes.get("/ui/", ui::workflows);
    routes.get("/ui/workflows/{ns}/{name}", ui::instances);
    routes.get("/ui/instances/{id}", ui::instance);
    routes.post("/ui/instances/{id}/cancel", ui::cancel);
    routes.post("/ui/instances/{id}/retry", ui::retry);
    routes.post("/ui/instances/{id}/signal", ui::signal);
    routes.get("/ui/operations", ui::operations);
    routes.get("/ui/operations/new", ui::operationForm);
    routes.get("/ui/operations/confirm", ui::operationConfirm);
    routes.post("/ui/operations", ui::operationCreate);
    routes.get("/ui/operations/{id}", ui::operation);
    routes.get("/ui/dead-letters", ui::deadLetters);
    routes.post("/ui/dead-letters/replay", ui::replay);
    routes.get("/ui/login", ui::loginForm);
    routes.post("/ui/login", ui::login);
    routes.post("/ui/logout", ui::logout);
    routes.get("/ui/assets/{file}", WebUi::asset);
    routes.exception(UiException.class, ui::failed);
  }

  // --- who may do what -----------------------------------------------------------------------------------------

  /** Before every request: headers, the CSRF cookie, sign-in, and the CSRF check of every POST. */
  private void guard(Context ctx) {
    String path = ctx.path();
    if (!path.equals("/ui") && !path.startsWith("/ui/")) {
      return;
    }
    ctx.header("Content-Security-Policy", CSP).header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "same-origin").header("Cache-Control", "no-store");
    if (path.startsWith("/ui/assets/")) {
      ctx.header("Cache-Control", "max-age=300");
      return;
    }
    String csrf = ctx.cookie(UiAuth.CSRF_COOKIE);
    boolean noCsrf = csrf == null || csrf.length() < 16;
    boolean cookiesHere = UiPaths.cookiesSettable(path, ctx.header(FORWARDED_PREFIX));
    if (noCsrf && cookiesHere) {
      csrf = UiAuth.newCsrfToken();
      setCookie(ctx, UiAuth.CSRF_COOKIE, csrf, -1);
    }
    boolean post = "POST".equals(ctx.method().name());
    if (post && !UiAuth.sameOrigin(csrf, ctx.formParam(UiAuth.CSRF_FIELD), ctx.header("Origin"), browserHost(ctx))) {
      throw new UiException(403, "This form is out of date or came from another site: reload the page and try"
          + " again.");
    }
    boolean signInPage = path.equals("/ui/login");
    Optional<Sessions.Who> who;
    try {
      who = sessions.who(ctx.cookie(UiAuth.SESSION_COOKIE), ctx.header("Authorization"));
    } catch (ReviewUnavailable e) {
      throw new UiException(503, "Who you are cannot be checked now: " + e.getMessage() + ".");
    }
    if (who.isEmpty() && !signInPage) {
      if (ctx.header(LIVE_HEADER) != null || post) {
        throw new UiException(401, "Signed out: sign in again.");
      }
      redirectToLogin(ctx, path);
      return;
    }
    if (noCsrf && !cookiesHere && !post && ctx.header(LIVE_HEADER) == null) {
      // Behind a proxy that names no prefix, the CSRF cookie is set from the sign-in page (UiPaths), which sends
      // the browser back here; signing in made it last as long as the session, so this is seldom.
      redirectToLogin(ctx, path);
      return;
    }
    Access access = who.map(Sessions.Who::access).orElse(Access.READ);
    ctx.attribute("viewer", new Viewer(access, who.map(Sessions.Who::caller).orElse(null), csrf,
        sessions.required() && who.isPresent(), gate != null && who.isPresent(), UiPaths.root(path)));
    who.ifPresent(w -> ctx.attribute(ApiSecurity.CALLER, w.caller()));
    if (post && who.isPresent() && access != Access.FULL && !path.equals("/ui/logout")) {
      throw new UiException(403, "Signed in with the read-only token: this needs the full token.");
    }
  }

  private static void redirectToLogin(Context ctx, String path) {
    String next = ctx.queryString() == null ? path : path + "?" + ctx.queryString();
    ctx.redirect(UiPaths.from(path, "login?next=" + Html.url(next)), HttpStatus.SEE_OTHER);
    ctx.skipRemainingHandlers();
  }

  /**
   * Kubernetes mode, once the route is known: what the page or button needs ({@link AccessTable}), asked of RBAC
   * for the signed-in user by the same gate as the API's. A refusal is a page that says what was missing and offers
   * to sign in as someone else.
   */
  private void authorize(Context ctx) {
    String path = ctx.path();
    Viewer viewer = ctx.attribute("viewer");
    if (!path.startsWith("/ui") || viewer == null || viewer.caller() == null) {
      return; // not the UI's, or signing in
    }
    AccessTable.Need need = AccessTable.need(ctx.method().name(), ctx.endpoints().matchedHttpEndpoint().path);
    try {
      gate.check(need, viewer.caller(), ctx::pathParam, ctx::formParam);
    } catch (AccessRefused e) {
      if (e.request() != null && "POST".equals(ctx.method().name())) {
        AuditLog.write(new AuditLog.Line(e.request().verb(), AuditLog.Outcome.FORBIDDEN, security.actor(ctx),
            e.request().namespace(), e.request().name(), ctx.pathParamMap().get("id"), e.request().resourcePath()));
      }
      UiException refused = new UiException(e.status(), e.status() == 403 ? "You may not do this: "
          + e.getMessage() + "." : e.getMessage());
      throw e.status() == 403 ? refused.signInAgain(returnTo(ctx)) : refused;
    } catch (ReviewUnavailable e) {
      throw new UiException(503, "Whether you may do this cannot be checked now: " + e.getMessage() + ".");
    } catch (SQLException e) {
      throw database(e);
    }
  }

  /** The page to come back to after signing in again: this one (a form's page for a button's POST). */
  private static String returnTo(Context ctx) {
    if ("GET".equals(ctx.method().name())) {
      return ctx.queryString() == null ? ctx.path() : ctx.path() + "?" + ctx.queryString();
    }
    String id = ctx.pathParamMap().get("id");
    return id != null ? "/ui/instances/" + id : ctx.path().startsWith("/ui/dead-letters") ? "/ui/dead-letters"
        : ctx.path().startsWith("/ui/operations") ? "/ui/operations/new" : "/ui/";
  }

  /**
   * Kubernetes mode: which namespaces the viewer may see on a page that shows many ({@code rule}, asked per
   * namespace; the answers are cached for seconds); token mode: all of them.
   */
  private Predicate<String> visible(Context ctx, AccessRule rule) {
    if (gate == null) {
      return ns -> true;
    }
    Viewer v = viewer(ctx);
    java.util.Map<String, Boolean> asked = new java.util.HashMap<>();
    return ns -> asked.computeIfAbsent(ns, n -> allowed(v, AccessGate.inNamespace(rule, n)));
  }

  private boolean allowed(Viewer v, AccessRequest request) {
    try {
      return gate.allows(v.caller(), request);
    } catch (ReviewUnavailable e) {
      throw new UiException(503, "What you may see cannot be checked now: " + e.getMessage() + ".");
    }
  }

  /** The rule of a page that shows many namespaces (the table's {@code EACH_NAMESPACE} routes). */
  private static AccessRule pageRule(String method, String route) {
    return ((AccessTable.Need.Allowed) AccessTable.need(method, route)).rule();
  }

  private static Viewer viewer(Context ctx) {
    return ctx.attribute("viewer");
  }

  private void loginForm(Context ctx) {
    if (!sessions.required()) { // here only for the CSRF cookie (see guard): back to where the browser was going
      ctx.redirect(UiPaths.from(ctx.path(), UiPaths.relative(safeNext(ctx.queryParam("next")))),
          HttpStatus.SEE_OTHER);
      return;
    }
    ctx.html(loginPage(ctx, safeNext(ctx.queryParam("next")), null));
  }

  private String loginPage(Context ctx, String next, String error) {
    return LoginView.page(viewer(ctx).root(), viewer(ctx).csrf(), next, error, sessions.prompt(), sessions.tokenLabel());
  }

  private void login(Context ctx) {
    String next = safeNext(ctx.formParam("next"));
    Optional<String> session;
    try {
      session = sessions.signIn(ctx.formParam("token"));
    } catch (ReviewUnavailable e) {
      ctx.status(503).html(loginPage(ctx, next, "The token cannot be checked now: " + e.getMessage() + "."));
      return;
    }
    if (session.isEmpty()) {
      LOG.debug("UI sign-in refused from {}", ctx.ip());
      ctx.status(401).html(loginPage(ctx, next, "That token is not valid for this runtime."));
      return;
    }
    setCookie(ctx, UiAuth.SESSION_COOKIE, session.get(), (int) UiAuth.SESSION_LENGTH.toSeconds());
    // The CSRF cookie as long as the session, so that a browser restarted with the session keeps both.
    setCookie(ctx, UiAuth.CSRF_COOKIE, viewer(ctx).csrf(), (int) UiAuth.SESSION_LENGTH.toSeconds());
    ctx.redirect(UiPaths.from(ctx.path(), UiPaths.relative(next)), HttpStatus.SEE_OTHER);
  }

  private void logout(Context ctx) {
    setCookie(ctx, UiAuth.SESSION_COOKIE, "", 0);
    ctx.redirect(UiPaths.from(ctx.path(), sessions.required() ? "login" : "./"), HttpStatus.SEE_OTHER);
  }

  /** Only a path of this UI: a sign-in link cannot send anyone elsewhere. */
  static String safeNext(String next) {
    if (next == null || !next.startsWith("/ui/") || next.startsWith("//") || next.contains("\\")) {
      return "/ui/";
    }
    return next;
  }

  /**
   * The host the browser asked for: a proxy in front (an ingress, {@code kubectl proxy}) may send its own Host and
   * say the browser's in X-Forwarded-Host (the first of a list is the browser's). A cross-site form cannot set that
   * header, so trusting it does not open the Origin check to another site.
   */
  private static String browserHost(Context ctx) {
    String forwarded = ctx.header("X-Forwarded-Host");
    if (forwarded == null || forwarded.isBlank()) {
      return ctx.host();
    }
    int comma = forwarded.indexOf(',');
    return (comma < 0 ? forwarded : forwarded.substring(0, comma)).trim();
  }

  /**
   * The UI's cookies, on its pages only: under the prefix a proxy in front strips, if it says so, else without a Path,
   * where the browser asked ({@link UiPaths}).
   */
  private static void setCookie(Context ctx, String name, String value, int maxAgeSeconds) {
    boolean https = "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto")) || ctx.scheme().equals("https");
    String path = UiPaths.cookiePath(ctx.header(FORWARDED_PREFIX));
    ctx.addHeader("Set-Cookie", name + "=" + value + (path == null ? "" : "; Path=" + path)
        + "; HttpOnly; SameSite=Strict"
        + (maxAgeSeconds >= 0 ? "; Max-Age=" + maxAgeSeconds : "") + (https ? "; Secure" : ""));
  }

  // --- pages ---------------------------------------------------------------------------------------------------

  private void workflows(Context ctx) {
    Predicate<String> visible = visible(ctx, pageRule("GET", "/ui/"));
    WorkflowBoard board = read(c -> {
      queries.oneSnapshot(c); // the counts and the steps from one moment
      List<Definition> definitions = new ArrayList<>();
      java.util.Set<String> groups = new java.util.HashSet<>();
      // The soonest next fire of each Workflow's schedules, as the scheduler last read them.
      Map<String, WorkflowBoard.NextFire> nextFires = new HashMap<>();
      for (ScheduleStore.Row row : parts.schedules().get()) {
        if (row.nextFire() != null) {
          nextFires.merge(row.namespace() + "/" + row.workflow(), new WorkflowBoard.NextFire(row.schedule(),
              row.nextFire()), (a, b) -> a.at().isAfter(b.at()) ? b : a);
        }
      }
      for (Workflow w : parts.workflows().all()) {
        String ns = w.getMetadata().getNamespace();
        if (!visible.test(ns)) {
          continue;
        }
        String name = w.getMetadata().getName();
        Integer revision = null;
        List<String> steps = new ArrayList<>();
        if (w.getSpec() != null) {
          revision = queries.revision(c, ns, name, SpecCodec.hash(SpecCodec.canonicalJson(w.getSpec()))).orElse(null);
          StepTree tree = StepTree.of(w.getSpec());
          steps.addAll(tree.places());
          tree.groups().forEach(g -> groups.add(ns + "/" + name + "/" + g));
        }
        definitions.add(new Definition(ns, name, steps, revision, w.getSpec() != null && w.getSpec().isPausedNow(),
            nextFires.get(ns + "/" + name)));
      }
      List<WorkflowBoard.Count> counts = queries.counts(c).stream().filter(n -> visible.test(n.namespace())).toList();
      return WorkflowBoard.of(definitions, counts, queries.occupancy(c, groups), queries.waitingForCapacity(c));
    });
    if (live(ctx)) {
      ctx.html(WorkflowsView.live(board));
    } else {
      ctx.html(WorkflowsView.page(board, viewer(ctx)));
    }
  }

  private void instances(Context ctx) {
    String status = blankToNull(ctx.queryParam("status"));
    if (status != null && !WorkflowBoard.STATUSES.contains(status)) {
      throw new UiException(400, "There is no instance status '" + status + "'.");
    }
    Optional<Cursor> after = Cursor.parse(ctx.queryParam("after"));
    Query q = new Query(ctx.pathParam("ns"), ctx.pathParam("name"), status, blankToNull(ctx.queryParam("businessKey")),
        after.map(Cursor::format).orElse(null), Query.limit(ctx.queryParam("limit")));
    InstancePage page = InstancePage.of(read(c -> queries.instances(c, q.namespace(), q.workflow(), q.status(),
        q.businessKey(), after.orElse(null), q.limit())), q.limit());
    ctx.html(live(ctx) ? InstancesView.live(q, page, clock.instant())
        : InstancesView.page(q, page, clock.instant(), viewer(ctx)));
  }

  private void instance(Context ctx) {
    showInstance(ctx, instanceId(ctx), notice(ctx.queryParam("done")), false, 200);
  }

  private void showInstance(Context ctx, UUID id, String notice, boolean error, int status) {
    InstanceDocument doc;
    try {
      doc = parts.documents().detail(id).orElse(null); // the API's own document, in its own transaction
    } catch (SQLException e) {
      throw database(e);
    }
    if (doc == null) {
      throw new UiException(404, "There is no instance " + id + " (finished instances are purged after the"
          + " retention period).");
    }
    InstanceView view = InstanceViewAdapter.from(doc);
    StepTree tree = read(c -> parts.definitions().loadSpec(c, view.namespace(), view.workflow(), view.revision())
        .map(SpecCodec::parse).map(StepTree::of).orElseGet(() -> StepTree.of(view.steps())));
    StepPicture picture = StepPicture.layout(tree, view.steps(), view.maps(), !view.active());
    InstanceDetailView.Abilities can = parts.buttons().abilities().waitingFor(view.waiting().stream()
        .map(tree::signalOf).flatMap(Optional::stream).findFirst().orElse(null));
    ctx.status(status);
    if (live(ctx)) {
      ctx.html(InstanceDetailView.live(view, picture, can, viewer(ctx), clock.instant(), parts.traces()));
    } else {
      ctx.html(InstanceDetailView.page(view, picture, can, viewer(ctx), notice, error, clock.instant(),
          parts.traces()));
    }
  }

  private static String notice(String done) {
    if (done == null) {
      return null;
    }
    return switch (done) {
      case "cancelled" -> "Cancelled.";
      case "cancelled-compensating" ->
          "Cancelled: a step still at a worker is awaited, then the completed steps are compensated.";
      case "retried" -> "Sent again: the instance carries on from the failed step.";
      case "signalled" -> "Signal sent.";
      default -> null;
    };
  }

  // --- buttons -------------------------------------------------------------------------------------------------

  private void cancel(Context ctx) {
    boolean compensate = "true".equals(ctx.formParam("compensate"));
    Actor actor = security.actor(ctx);
    act(ctx, id -> parts.buttons().cancel(id, compensate, actor),
        compensate ? "cancelled-compensating" : "cancelled");
  }

  private void retry(Context ctx) {
    Actor actor = security.actor(ctx);
    act(ctx, id -> parts.buttons().retry(id, actor), "retried");
  }

  private void signal(Context ctx) {
    String signal = blankToNull(ctx.formParam("signal"));
    String body = ctx.formParam("body") == null || ctx.formParam("body").isBlank() ? "{}" : ctx.formParam("body");
    UUID id = instanceId(ctx);
    if (signal == null) {
      showInstance(ctx, id, "Name the signal to send.", true, 400);
      return;
    }
    try {
      Json.MAPPER.readTree(body);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      showInstance(ctx, id, "The signal's body is not JSON: " + e.getOriginalMessage(), true, 400);
      return;
    }
    Actor actor = security.actor(ctx);
    act(ctx, i -> parts.buttons().signal(i, signal, body, actor), "signalled");
  }

  private void act(Context ctx, Button button, String done) {
    UUID id = instanceId(ctx);
    InstanceButtons.Outcome outcome;
    try {
      outcome = button.press(id);
    } catch (SQLException e) {
      throw database(e);
    }
    if (outcome instanceof InstanceButtons.Outcome.NotFound) {
      throw new UiException(404, "There is no instance " + id + ".");
    }
    if (outcome instanceof InstanceButtons.Outcome.Refused r) {
      showInstance(ctx, id, r.reason(), true, 409);
      return;
    }
    ctx.redirect(UiPaths.from(ctx.path(), "instances/" + id + "?done=" + done), HttpStatus.SEE_OTHER);
  }

  @FunctionalInterface
  private interface Button {
    InstanceButtons.Outcome press(UUID id) throws SQLException;
  }

  // --- bulk operations -----------------------------------------------------------------------------------------

  /** The latest operations, those the viewer may see (Kubernetes mode: as each one's page, {@code get} on its filter). */
  private void operations(Context ctx) {
    List<OperationDocument> visible;
    try {
      visible = parts.operations().recent(OperationsView.LISTED).stream()
          .filter(op -> mayOnFilter(ctx, "get", op.filter())).toList();
    } catch (SQLException e) {
      throw database(e);
    }
    ctx.html(live(ctx) ? OperationsView.liveList(visible, clock.instant())
        : OperationsView.list(visible, viewer(ctx), clock.instant()));
  }

  private void operationForm(Context ctx) {
    ctx.html(OperationsView.form(OperationsView.Ask.from(ctx::queryParam), viewer(ctx), null));
  }

  /** The count: a dry run of the operation the form asks for (RBAC's {@code list}, as the API's dry run). */
  private void operationConfirm(Context ctx) {
    OperationsView.Ask ask = OperationsView.Ask.from(ctx::queryParam);
    OperationRequest request;
    try {
      request = ask.request(true);
    } catch (InvalidRequest e) {
      ctx.status(400).html(OperationsView.form(ask, viewer(ctx), "Not yet: " + e.getMessage() + "."));
      return;
    }
    String back = "/ui/operations/new?" + ask.query();
    requireOnFilter(ctx, "list", request.filter(), back);
    String verb = operationVerb(request);
    String refusal = mayOnFilter(ctx, verb, request.filter()) ? null : "You may not " + verb
        + " workflows/instances " + namespaceWords(request.filter()) + ": the operation would be refused.";
    long matched;
    try {
      matched = parts.operations().create(request, security.actor(ctx)).matched();
    } catch (SQLException e) {
      throw database(e);
    }
    ctx.html(OperationsView.confirm(ask, matched, viewer(ctx), refusal));
  }

  /** The confirm button: the operation is created (RBAC's verb of its action, as the API's) and shown. */
  private void operationCreate(Context ctx) {
    OperationsView.Ask ask = OperationsView.Ask.from(ctx::formParam);
    OperationRequest request;
    try {
      request = ask.request(false);
    } catch (InvalidRequest e) {
      ctx.status(400).html(OperationsView.form(ask, viewer(ctx), "Not yet: " + e.getMessage() + "."));
      return;
    }
    requireOnFilter(ctx, operationVerb(request), request.filter(), "/ui/operations/new?" + ask.query());
    OperationDocument created;
    try {
      created = parts.operations().create(request, security.actor(ctx));
    } catch (SQLException e) {
      throw database(e);
    }
    ctx.redirect(UiPaths.from(ctx.path(), "operations/" + created.id() + "?created=1"), HttpStatus.SEE_OTHER);
  }

  private void operation(Context ctx) {
    UUID id = uuidOrNull(ctx.pathParam("id"));
    Optional<OperationDocument> found;
    try {
      found = id == null || !id.toString().equalsIgnoreCase(ctx.pathParam("id")) ? Optional.empty()
          : parts.operations().find(id);
    } catch (SQLException e) {
      throw database(e);
    }
    OperationDocument op = found.orElseThrow(() -> new UiException(404, "There is no bulk operation '"
        + ctx.pathParam("id") + "'."));
    requireOnFilter(ctx, "get", op.filter(), ctx.path());
    if (live(ctx)) {
      ctx.html(OperationsView.live(op, clock.instant()));
    } else {
      ctx.html(OperationsView.page(op, viewer(ctx), ctx.queryParam("created") == null ? null
          : "Created: " + op.matched() + " matched; they are acted on a page at a time.", clock.instant()));
    }
  }

  /** The verb RBAC is asked for an operation's action, as by the API: a cancel deletes, a retry or signal updates. */
  private static String operationVerb(OperationRequest request) {
    return request.action().equals("cancel") ? "delete" : "update";
  }

  /** Kubernetes mode: the question of a bulk operation, in the filter's namespace or cluster-wide (the API's). */
  private static AccessRequest onFilter(String verb, Map<String, String> filter) {
    String ns = filter.get("namespace");
    return new AccessRule(verb, AccessRule.Resource.INSTANCES, AccessRule.Scope.QUERY)
        .in(ns == null ? "" : ns, ns == null ? null : filter.get("workflow"));
  }

  private static String namespaceWords(Map<String, String> filter) {
    return filter.get("namespace") == null ? "in every namespace" : "in namespace " + filter.get("namespace");
  }

  /** Kubernetes mode: refused unless RBAC allows the viewer {@code verb} where the filter points; token mode: passes. */
  private void requireOnFilter(Context ctx, String verb, Map<String, String> filter, String back) {
    if (gate == null) {
      return;
    }
    AccessRequest question = onFilter(verb, filter);
    try {
      gate.require(viewer(ctx).caller(), question);
    } catch (AccessRefused e) {
      if ("POST".equals(ctx.method().name())) {
        AuditLog.write(new AuditLog.Line(verb, AuditLog.Outcome.FORBIDDEN, security.actor(ctx), question.namespace(),
            question.name(), null, question.resourcePath()));
      }
      UiException refused = new UiException(e.status(), e.status() == 403 ? "You may not do this: "
          + e.getMessage() + "." : e.getMessage());
      throw e.status() == 403 ? refused.signInAgain(back) : refused;
    } catch (ReviewUnavailable e) {
      throw new UiException(503, "Whether you may do this cannot be checked now: " + e.getMessage() + ".");
    }
  }

  private boolean mayOnFilter(Context ctx, String verb, Map<String, String> filter) {
    return gate == null || allowed(viewer(ctx), onFilter(verb, filter));
  }

  // --- dead letters --------------------------------------------------------------------------------------------

  private void deadLetters(Context ctx) {
    showDeadLetters(ctx, replayedNotice(ctx), false, 200);
  }

  private void showDeadLetters(Context ctx, String notice, boolean error, int status) {
    DeadLetterDesk desk = parts.deadLetters();
    Optional<String> unavailable = desk.unavailable();
    if (unavailable.isPresent()) {
      throw new UiException(503, unavailable.get());
    }
    String service = blankToNull(ctx.queryParam("service"));
    Map<String, List<DeadLetterDesk.QueueView>> services;
    try {
      services = visibleServices(ctx, desk.byService(service));
    } catch (UiException e) {
      throw e;
    } catch (RuntimeException e) {
      LOG.warn("Reading dead letters failed: {}", e.toString());
      throw new UiException(503, "The RabbitMQ management API did not answer (" + e.getClass().getSimpleName()
          + "): is it reachable, and may the runtime's management user read the vhost?");
    }
    ctx.status(status).html(DeadLettersView.page(desk.vhost(), services, service, viewer(ctx), notice, error,
        clock.instant()));
  }

  /**
   * Kubernetes mode: the services whose dead letters the viewer may list, asked in the namespace of each service's
   * WorkerService (cluster-wide for the runtime's own parking lots and services without one); token mode: all.
   */
  private Map<String, List<DeadLetterDesk.QueueView>> visibleServices(Context ctx,
      Map<String, List<DeadLetterDesk.QueueView>> services) {
    if (gate == null) {
      return services;
    }
    AccessRule rule = pageRule("GET", "/ui/dead-letters");
    Viewer v = viewer(ctx);
    Map<String, List<DeadLetterDesk.QueueView>> shown = new java.util.TreeMap<>();
    services.forEach((service, queues) -> {
      if (!queues.isEmpty() && allowed(v, gate.onDeadLetters(rule, queues.get(0).queue()))) {
        shown.put(service, queues);
      }
    });
    return shown;
  }

  private static String replayedNotice(Context ctx) {
    String n = ctx.queryParam("replayed");
    String queue = ctx.queryParam("queue");
    if (n == null || queue == null || !n.matches("\\d{1,9}") || !DeadLetterQueue.isDeadLetterQueue(queue)) {
      return null;
    }
    return "Replayed " + n + " message" + ("1".equals(n) ? "" : "s") + " from " + queue + ".";
  }

  private void replay(Context ctx) {
    String name = ctx.formParam("queue");
    DeadLetterQueue queue = DeadLetterQueue.parse(name)
        .orElseThrow(() -> new UiException(400, DeadLetterQueue.notADeadLetterQueue(String.valueOf(name))));
    String messageId = blankToNull(ctx.formParam("messageId"));
    if (parts.deadLetters().unavailable().isPresent()) {
      throw new UiException(503, parts.deadLetters().unavailable().get());
    }
    Replayer.Result result;
    try {
      result = parts.deadLetters().replay(queue, messageId);
    } catch (Replayer.UnroutableReplayException e) {
      showDeadLetters(ctx, e.getMessage(), true, 409);
      return;
    } catch (IOException | TimeoutException | RuntimeException e) {
      LOG.warn("Replaying {} from the UI failed: {}", queue.name(), e.toString());
      showDeadLetters(ctx, "Replaying " + queue.name() + " stopped (" + e.getClass().getSimpleName() + "): messages"
          + " not confirmed stay in the queue.", true, 503);
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UiException(503, "Interrupted; nothing unconfirmed was removed.");
    }
    if (messageId != null && result.moved().isEmpty()) {
      showDeadLetters(ctx, "No message " + messageId + " in " + queue.name() + " any more.", true, 409);
      return;
    }
    LOG.info("Replayed {} dead letter(s) from {} through the web UI", result.moved().size(), queue.name());
    recordReplay(ctx, queue, messageId, result);
    ctx.redirect(UiPaths.from(ctx.path(), "dead-letters?replayed=" + result.moved().size() + "&queue="
        + Html.url(queue.name())), HttpStatus.SEE_OTHER);
  }

  /**
   * A replay into the audit: one line for the replay, and an entry on each instance of this runtime whose message
   * went back to its queue (a worker's dead letter names its instance in {@code baton-instance}).
   */
  private void recordReplay(Context ctx, DeadLetterQueue queue, String messageId, Replayer.Result result) {
    Actor actor = security.actor(ctx);
    String detail = queue.name() + (messageId == null ? "" : " message " + messageId) + ": " + result.moved().size()
        + " replayed";
    Set<UUID> instances = result.moved().stream().map(Replayer.Moved::instance).map(WebUi::uuidOrNull)
        .filter(java.util.Objects::nonNull).collect(Collectors.toSet());
    AuditLog.write(new AuditLog.Line("replay", AuditLog.Outcome.DONE, actor, null, null,
        instances.size() == 1 ? instances.iterator().next().toString() : null, detail));
    try {
      parts.buttons().replayed(instances, actor, queue.name() + (messageId == null ? "" : " message " + messageId));
    } catch (SQLException e) {
      // The messages are back in their queues; only the instances' entries are missing (the line above has it).
      LOG.warn("The replay from {} could not be recorded on its instances: {}", queue.name(), e.toString());
    }
  }

  private static UUID uuidOrNull(String text) {
    try {
      return text == null ? null : UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  // --- plumbing ------------------------------------------------------------------------------------------------

  private static void asset(Context ctx) {
    String file = ctx.pathParam("file");
    String type = file.endsWith(".css") ? "text/css; charset=utf-8"
        : file.endsWith(".js") ? "text/javascript; charset=utf-8" : null;
    InputStream in = type == null || !file.matches("[a-z0-9-]+\\.[a-z]+") ? null
        : WebUi.class.getResourceAsStream(ASSETS + file);
    if (in == null) {
      throw new UiException(404, "No such file.");
    }
    try (in) {
      ctx.contentType(type).result(in.readAllBytes());
    } catch (IOException e) {
      throw new UiException(500, "The file could not be read.");
    }
  }

  private static boolean live(Context ctx) {
    return ctx.header(LIVE_HEADER) != null;
  }

  private <T> T read(UiQuery<T> query) {
    try {
      return parts.database().inTransaction(query::run);
    } catch (SQLException e) {
      throw database(e);
    }
  }

  @FunctionalInterface
  private interface UiQuery<T> {
    T run(java.sql.Connection c) throws SQLException;
  }

  private static UiException database(SQLException e) {
    if (SqlErrors.isTransient(e)) {
      return new UiException(503, "The database is unavailable; the page will work again once it is back.");
    }
    LOG.error("A UI request failed", e);
    return new UiException(500, "The request failed; see the runtime's log.");
  }

  private void failed(UiException e, Context ctx) {
    if (live(ctx)) {
      ctx.status(e.status()).result("");
      return;
    }
    Viewer v = ctx.attribute("viewer");
    String again = e.signInAgain() == null ? "" : "<p><a id=\"sign-in-again\" href=\"login?next="
        + Html.url(e.signInAgain()) + "\">Sign in as someone else</a></p>";
    ctx.status(e.status()).html(Layout.page(UiPaths.root(ctx.path()), "Error", Layout.Section.NONE, v,
        "<h1>" + (e.status() == 404 ? "Not found" : e.status() == 403 ? "Refused" : "Something went wrong")
            + "</h1>" + Layout.notice(e.getMessage(), true) + again + "<p><a href=\"./\">Workflows</a></p>"));
  }

  private static UUID instanceId(Context ctx) {
    String text = ctx.pathParam("id");
    try {
      UUID id = UUID.fromString(text);
      if (id.toString().equalsIgnoreCase(text)) {
        return id;
      }
    } catch (IllegalArgumentException e) {
      // below
    }
    throw new UiException(404, "'" + text + "' is not an instance id.");
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  /** A page that answers with an error page (status and what to tell the user). */
  static final class UiException extends RuntimeException {
    private final int status;
    private String signInAgain;

    UiException(int status, String message) {
      super(message);
      this.status = status;
    }

    int status() {
      return status;
    }

    /** A refusal that offers to sign in as someone else, then come back to {@code next}. */
    UiException signInAgain(String next) {
      this.signInAgain = safeNext(next);
      return this;
    }

    String signInAgain() {
      return signInAgain;
    }
  }
}
