package dev.baton.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceStatus;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NameClaimsTest {

  static WorkerService ws(String namespace, String name, String created) {
    WorkerService ws = WorkerServiceTranslatorTest.ws(name, s -> s.setService("payment"));
    ws.getMetadata().setNamespace(namespace);
    ws.getMetadata().setCreationTimestamp(created);
    return ws;
  }

  @ParameterizedTest(name = "{0} vs {1} -> {2}")
  @CsvSource({
    "a/x@2026-01-01T00:00:00Z, b/y@2026-01-02T00:00:00Z, a/x",
    "a/x@2026-01-03T00:00:00Z, b/y@2026-01-02T00:00:00Z, b/y",
    // same second: namespace, then name decide, the same for every reconciler
    "b/x@2026-01-01T00:00:00Z, a/y@2026-01-01T00:00:00Z, a/y",
    // not yet stamped by the API server: the newest
    "a/x@,                     b/y@2026-01-02T00:00:00Z, b/y",
  })
  void theOlderResourceHoldsTheName(String first, String second, String holder) {
    WorkerService one = parse(first);
    WorkerService two = parse(second);
    NameClaims<WorkerService> claims = WorkerServiceTranslator.claims(List.of(one, two));
    assertThat(claims.holder("payment").map(NameClaims::describe)).contains(holder);
    WorkerService loser = NameClaims.describe(one).equals(holder) ? two : one;
    assertThat(claims.holds(loser, "payment")).isFalse();
    assertThat(claims.isFreeFor(loser, "payment")).isFalse();
    assertThat(claims.isFreeFor(loser, "billing")).isTrue();
  }

  @Test
  void inTheSameSecondTheIncumbentKeepsItsName() {
    WorkerService incumbent = ws("z-team", "billing", "2026-01-01T00:00:00Z");
    WorkerServiceStatus status = new WorkerServiceStatus();
    status.setService("payment");
    status.setConditions(List.of(new ConditionBuilder().withType("Ready").withStatus("True").withReason("Ready").build()));
    incumbent.setStatus(status);
    WorkerService newcomer = ws("a-team", "billing", "2026-01-01T00:00:00Z");

    NameClaims<WorkerService> claims = WorkerServiceTranslator.claims(List.of(newcomer, incumbent));
    assertThat(claims.holds(incumbent, "payment")).isTrue();
    assertThat(claims.holds(newcomer, "payment")).isFalse();
  }

  @Test
  void claimantsLookedUpByNameGiveTheVerdictOfTheWholeList() {
    WorkerService older = ws("a-team", "payment-v1", "2026-01-01T00:00:00Z");
    WorkerService newer = ws("b-team", "payment-v2", "2026-01-02T00:00:00Z");
    WorkerService other = WorkerServiceTranslatorTest.ws("billing", s -> s.setService("billing"));
    List<String> asked = new ArrayList<>();

    // An index may hand back more than the claimants of the name: they are checked again.
    NameClaims<WorkerService> claims = WorkerServiceTranslator.claims(name -> {
      asked.add(name);
      return List.of(newer, other, older);
    }, Tenancy.CLOSED);

    assertThat(claims.holds(older, "payment")).isTrue();
    assertThat(claims.holds(newer, "payment")).isFalse();
    assertThat(claims.holder("billing")).contains(other);
    assertThat(claims.isFreeFor(newer, "audit")).isTrue();
    assertThat(asked).as("each name looked up once").containsExactly("payment", "billing", "audit");
  }

  private static WorkerService parse(String spec) {
    String[] at = spec.split("@", -1);
    String[] id = at[0].split("/");
    return ws(id[0], id[1], at[1].isEmpty() ? null : at[1]);
  }
}
