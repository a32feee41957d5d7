package dev.baton.runtime.http.auth;

import static dev.baton.runtime.http.auth.AccessTableTest.ID;
import static dev.baton.runtime.http.auth.AccessTableTest.WHERE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.httpapi.ApiPaths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The one place that decides: a token, a route, RBAC's answer — and what a caller is told when the answer is no. */
class AccessGateTest {

  static final Caller CI = new Caller("system:serviceaccount:team-a:ci", "uid-1",
      List.of("system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated"), Map.of());
  static final Map<String, Caller> TOKENS = Map.of("team-a-ci-token", CI);

  /** RBAC as a list of what is allowed: {@code verb resource namespace}. */
  static Authorizer allowing(String... grants) {
    return (caller, r) -> List.of(grants).contains(r.verb() + " " + r.resourcePath() + " " + r.namespace());
  }

  final List<AccessRequest> asked = new ArrayList<>();

  AccessGate gate(Authorizer rbac) {
    return new AccessGate(token -> Optional.ofNullable(TOKENS.get(token)), (caller, r) -> {
      asked.add(r);
      return rbac.allows(caller, r);
    }, WHERE);
  }

  @Test
  void aRequestWithoutATokenIsA401ThatSaysHowToGetOne() {
    assertThatThrownBy(() -> gate(allowing()).authenticate(null)).isInstanceOfSatisfying(AccessRefused.class, e -> {
      assertThat(e.status()).isEqualTo(401);
      assertThat(e.challenge()).isEqualTo("Bearer realm=\"baton\"");
      assertThat(e.getMessage()).contains("kubectl create token");
    });
  }

  @Test
  void aTokenTheClusterDoesNotKnowIsA401WithInvalidToken() {
    assertThatThrownBy(() -> gate(allowing()).authenticate("not-a-token")).isInstanceOfSatisfying(AccessRefused.class,
        e -> {
          assertThat(e.status()).isEqualTo(401);
          assertThat(e.challenge()).isEqualTo("Bearer realm=\"baton\", error=\"invalid_token\"");
          assertThat(e.getMessage()).doesNotContain("not-a-token");
        });
  }

  @Test
  void aKnownTokenIsItsUser() {
    assertThat(gate(allowing()).authenticate(" team-a-ci-token ")).isEqualTo(CI);
  }

  @Test
  void aStartAllowedInItsNamespaceGoesThrough() throws Exception {
    AccessGate gate = gate(allowing("create workflows/instances team-a"));

    AccessRequest allowed = gate.check(AccessTable.need("POST", ApiPaths.INSTANCES), CI,
        Map.of("ns", "team-a", "name", "order-fulfilment")::get, n -> null);

    assertThat(allowed).isEqualTo(new AccessRequest("create", "baton.dev", "workflows", "instances", "team-a",
        "order-fulfilment"));
  }

  @Test
  void aStartInAnotherTeamsNamespaceIsA403NamingTheVerbTheResourceAndTheNamespace() {
    AccessGate gate = gate(allowing("create workflows/instances team-a"));

    assertThatThrownBy(() -> gate.check(AccessTable.need("POST", ApiPaths.INSTANCES), CI,
        Map.of("ns", "team-b", "name", "order-fulfilment")::get, n -> null))
        .isInstanceOfSatisfying(AccessRefused.class, e -> {
          assertThat(e.status()).isEqualTo(403);
          assertThat(e.code()).isEqualTo("Forbidden");
          assertThat(e.getMessage()).isEqualTo("system:serviceaccount:team-a:ci may not create workflows/instances"
              + " in namespace team-b (Workflow order-fulfilment)");
          assertThat(e.challenge()).isNull();
        });
  }

  @Test
  void aSearchIsAListInTheNamespaceItNamesAndAcrossTheClusterWhenItNamesNone() throws Exception {
    AccessGate gate = gate(allowing("list workflows/instances team-a"));

    AccessRequest inTeamA = gate.check(AccessTable.need("GET", ApiPaths.SEARCH), CI, n -> null,
        Map.of("namespace", "team-a", "workflow", "order-fulfilment")::get);
    assertThat(inTeamA).isEqualTo(new AccessRequest("list", "baton.dev", "workflows", "instances", "team-a",
        "order-fulfilment"));

    assertThatThrownBy(() -> gate.check(AccessTable.need("GET", ApiPaths.SEARCH), CI, n -> null, n -> null))
        .isInstanceOfSatisfying(AccessRefused.class, e -> assertThat(e.status()).isEqualTo(403));
  }

  @Test
  void aCancelIsAskedInTheNamespaceOfTheInstancesWorkflow() {
    AccessGate gate = gate(allowing("get workflows/instances team-a"));

    assertThatThrownBy(() -> gate.check(AccessTable.need("POST", ApiPaths.CANCEL), CI, Map.of("id", ID)::get,
        n -> null)).isInstanceOfSatisfying(AccessRefused.class, e -> assertThat(e.getMessage())
        .isEqualTo("system:serviceaccount:team-a:ci may not delete workflows/instances in namespace team-a"
            + " (Workflow order-fulfilment)"));
    assertThat(asked).extracting(AccessRequest::verb, AccessRequest::namespace)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("delete", "team-a"));
  }

  @Test
  void theOperatorsReadsNeedListInEveryNamespace() {
    assertThatThrownBy(() -> gate(allowing("list workflows/instances team-a")).check(
        AccessTable.need("GET", ApiPaths.COUNTS), CI, n -> null, n -> null))
        .isInstanceOfSatisfying(AccessRefused.class, e -> assertThat(e.getMessage())
            .isEqualTo("system:serviceaccount:team-a:ci may not list workflows/instances in every namespace"
                + " (cluster-wide)"));
  }

  @Test
  void openRoutesAskNothing() throws Exception {
    assertThat(gate(allowing()).check(AccessTable.need("GET", ApiPaths.HEALTH), Caller.ANONYMOUS, n -> null,
        n -> null)).isNull();
    assertThat(asked).isEmpty();
  }

  @Test
  void anApiServerThatCannotBeAskedIsNeverAPass() {
    AccessGate gate = new AccessGate(token -> {
      throw new ReviewUnavailable("the Kubernetes API could not be asked");
    }, (caller, r) -> {
      throw new ReviewUnavailable("the Kubernetes API could not be asked");
    }, WHERE);

    assertThatThrownBy(() -> gate.authenticate("team-a-ci-token")).isInstanceOf(ReviewUnavailable.class);
    assertThatThrownBy(() -> gate.check(AccessTable.need("GET", ApiPaths.INSTANCE), CI, Map.of("id", ID)::get,
        n -> null)).isInstanceOf(ReviewUnavailable.class);
  }
}
