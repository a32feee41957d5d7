package dev.baton.runtime.http.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.httpapi.ApiOperations;
import dev.baton.httpapi.ApiPaths;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Who may call what, route by route: the table from (method, route) to the one question RBAC is asked, with the
 * request's values filled in — an instance of order-fulfilment in team-a, and the payment service's WorkerService in
 * shop.
 */
class AccessTableTest {

  static final UUID ORDER = UUID.fromString("0190f0c2-7a1b-7c3d-8e4f-000000000042");
  static final String ID = ORDER.toString();

  /** Where things live: the one instance, and the one WorkerService. */
  static final Targets WHERE = new Targets() {
    @Override
    public Optional<Target> workflowOf(UUID instance) {
      return instance.equals(ORDER) ? Optional.of(new Target("team-a", "order-fulfilment")) : Optional.empty();
    }

    @Override
    public Optional<Target> serviceOwner(String service) {
      return service.equals("payment") ? Optional.of(new Target("shop", "payment-workers")) : Optional.empty();
    }
  };

  static final Authorizer NOBODY = (caller, request) -> false;
  static final AccessGate GATE = new AccessGate(token -> Optional.empty(), NOBODY, WHERE);

  static Stream<Arguments> routes() {
    Map<String, String> teamA = Map.of("ns", "team-a", "name", "order-fulfilment");
    Map<String, String> instance = Map.of("id", ID);
    Map<String, String> signal = Map.of("id", ID, "signal", "approved");
    Map<String, String> none = Map.of();
    return Stream.of(
        row("starting an instance is create, in the Workflow's namespace",
            "POST", ApiPaths.INSTANCES, teamA, none, "create workflows/instances team-a order-fulfilment"),
        row("a batch start is create too",
            "POST", ApiPaths.BATCH, teamA, none, "create workflows/instances team-a order-fulfilment"),
        row("listing a Workflow's instances is list",
            "GET", ApiPaths.INSTANCES, teamA, none, "list workflows/instances team-a order-fulfilment"),
        row("reading an instance is get, in its Workflow's namespace",
            "GET", ApiPaths.INSTANCE, instance, none, "get workflows/instances team-a order-fulfilment"),
        row("HEAD reads as GET does",
            "HEAD", ApiPaths.INSTANCE, instance, none, "get workflows/instances team-a order-fulfilment"),
        row("a signal is update",
            "POST", ApiPaths.SIGNAL, signal, none, "update workflows/instances team-a order-fulfilment"),
        row("a retry is update",
            "POST", ApiPaths.RETRY, instance, none, "update workflows/instances team-a order-fulfilment"),
        row("a cancel is delete",
            "POST", ApiPaths.CANCEL, instance, none, "delete workflows/instances team-a order-fulfilment"),
        row("the operator's counts are list in every namespace",
            "GET", ApiPaths.COUNTS, none, none, "list workflows/instances * -"),
        row("the operator's routes are list in every namespace",
            "GET", ApiPaths.ROUTES, none, none, "list workflows/instances * -"),
        row("the UI's instance list is list, as the API's",
            "GET", "/ui/workflows/{ns}/{name}", teamA, none, "list workflows/instances team-a order-fulfilment"),
        row("the UI's instance page is get",
            "GET", "/ui/instances/{id}", instance, none, "get workflows/instances team-a order-fulfilment"),
        row("the UI's cancel button is delete",
            "POST", "/ui/instances/{id}/cancel", instance, none, "delete workflows/instances team-a order-fulfilment"),
        row("the UI's retry button is update",
            "POST", "/ui/instances/{id}/retry", instance, none, "update workflows/instances team-a order-fulfilment"),
        row("the UI's signal button is update",
            "POST", "/ui/instances/{id}/signal", instance, none, "update workflows/instances team-a order-fulfilment"),
        row("replaying a service's dead letters is create on its WorkerService's deadletters, in its namespace",
            "POST", "/ui/dead-letters/replay", none, Map.of("queue", "q.dlx.payment.pay"),
            "create workerservices/deadletters shop payment-workers"),
        row("replaying the runtime's own parking lot, which no WorkerService owns, is asked cluster-wide",
            "POST", "/ui/dead-letters/replay", none, Map.of("queue", "q.dlx.orchestrator.order-fulfilment"),
            "create workerservices/deadletters * -"),
        row("replaying a service no WorkerService is known for is asked cluster-wide",
            "POST", "/ui/dead-letters/replay", none, Map.of("queue", "q.dlx.gone.ship"),
            "create workerservices/deadletters * -"));
  }

  static Arguments row(String sentence, String method, String route, Map<String, String> path,
      Map<String, String> form, String question) {
    return Arguments.of(sentence, method, route, path, form, question);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("routes")
  void eachRouteAsksOneQuestion(String sentence, String method, String route, Map<String, String> path,
      Map<String, String> form, String question) throws Exception {
    AccessTable.Need need = AccessTable.need(method, route);
    assertThat(need).isInstanceOf(AccessTable.Need.Allowed.class);
    AccessRequest asked = GATE.question(((AccessTable.Need.Allowed) need).rule(), path::get, form::get);

    assertThat(asked.group()).isEqualTo("baton.dev");
    assertThat(asked.verb() + " " + asked.resourcePath() + " " + (asked.clusterWide() ? "*" : asked.namespace())
        + " " + (asked.name() == null ? "-" : asked.name())).isEqualTo(question);
  }

  @Test
  void probesMetricsAndSigningInNeedNoToken() {
    for (String[] open : new String[][] {{"GET", ApiPaths.HEALTH}, {"GET", ApiPaths.LIVE}, {"GET", ApiPaths.METRICS},
        {"HEAD", ApiPaths.HEALTH}, {"GET", "/ui/login"}, {"POST", "/ui/login"}, {"POST", "/ui/logout"},
        {"GET", "/ui/assets/{file}"}}) {
      assertThat(AccessTable.need(open[0], open[1])).as(open[0] + " " + open[1])
          .isInstanceOf(AccessTable.Need.Open.class);
    }
  }

  @Test
  void askingWhoOneIsNeedsAValidTokenAndNothingOfRbac() throws Exception {
    AccessTable.Need need = AccessTable.need("GET", ApiPaths.WHOAMI);

    assertThat(need).isInstanceOf(AccessTable.Need.SignedIn.class);
    assertThat(GATE.check(need, Caller.named("someone"), n -> null, n -> null)).isNull();
  }

  @Test
  void pagesThatShowManyNamespacesAskPerNamespace() throws Exception {
    AccessRule board = ((AccessTable.Need.Allowed) AccessTable.need("GET", "/ui/")).rule();
    AccessRule deadLetters = ((AccessTable.Need.Allowed) AccessTable.need("GET", "/ui/dead-letters")).rule();

    assertThat(board.scope()).isEqualTo(AccessRule.Scope.EACH_NAMESPACE);
    assertThat(GATE.question(board, n -> null, n -> null)).as("nothing asked before the page").isNull();
    assertThat(AccessGate.inNamespace(board, "team-a")).isEqualTo(
        new AccessRequest("list", "baton.dev", "workflows", "instances", "team-a", null));
    assertThat(deadLetters.verb() + " " + deadLetters.resource().resource() + "/"
        + deadLetters.resource().subresource()).isEqualTo("list workerservices/deadletters");
  }

  @Test
  void aRouteTheTableDoesNotKnowIsRefusedWhoeverAsks() {
    AccessTable.Need need = AccessTable.need("DELETE", ApiPaths.INSTANCE);

    assertThat(need).isEqualTo(new AccessTable.Need.Unlisted("DELETE " + ApiPaths.INSTANCE));
    assertThatThrownBy(() -> GATE.check(need, Caller.named("cluster-admin"), n -> ID, n -> null))
        .isInstanceOfSatisfying(AccessRefused.class, e -> assertThat(e.status()).isEqualTo(403));
  }

  @Test
  void anInstanceThatIsNotThereIsA404AndAnIdThatIsNotOneA400() {
    AccessRule get = ((AccessTable.Need.Allowed) AccessTable.need("GET", ApiPaths.INSTANCE)).rule();
    UUID other = UUID.fromString("0190f0c2-7a1b-7c3d-8e4f-000000000043");

    assertThatThrownBy(() -> GATE.question(get, n -> other.toString(), n -> null))
        .isInstanceOfSatisfying(AccessRefused.class, e -> {
          assertThat(e.status()).isEqualTo(404);
          assertThat(e.getMessage()).isEqualTo("no instance " + other);
        });
    assertThatThrownBy(() -> GATE.question(get, n -> "order-42", n -> null))
        .isInstanceOfSatisfying(AccessRefused.class, e -> assertThat(e.status()).isEqualTo(400));
  }

  @Test
  void aReplayOfSomethingThatIsNotADeadLetterQueueIsA400() {
    AccessRule replay = ((AccessTable.Need.Allowed) AccessTable.need("POST", "/ui/dead-letters/replay")).rule();

    assertThatThrownBy(() -> GATE.question(replay, n -> null, n -> "q.payment.pay"))
        .isInstanceOfSatisfying(AccessRefused.class, e -> assertThat(e.status()).isEqualTo(400));
  }

  /**
   * The table and the OpenAPI document say the same of each operation: open (no token asked for) where the document
   * asks for none or makes it optional ({@code /metrics}), a token everywhere else; and every operation is listed.
   */
  @Test
  void everyOperationOfTheApiIsListedAndOpenWhereTheDocumentSaysSo() {
    for (ApiOperations.Operation op : ApiOperations.ALL) {
      AccessTable.Need need = AccessTable.need(op.method(), op.path());
      assertThat(need).as(op.route()).isNotInstanceOf(AccessTable.Need.Unlisted.class);
      assertThat(need instanceof AccessTable.Need.Open).as(op.route())
          .isEqualTo(op.access() != ApiOperations.Access.TOKEN);
    }
  }
}
