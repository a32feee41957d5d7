package dev.baton.devapi.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.devapi.rbac.UserInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ServiceAccountTokensTest {

  private static final Instant NOW = Instant.parse("2026-12-04T10:00:00Z");

  private Instant now = NOW;
  private final Clock clock = new Clock() {
    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  };
  private final ServiceAccountTokens tokens = new ServiceAccountTokens(clock);
  /** namespace/name to uid: the stored ServiceAccounts. */
  private final Map<String, String> accounts = new HashMap<>(Map.of("team-a/ci", "uid-1"));
  private final ServiceAccountTokens.ServiceAccountLookup lookup =
      (namespace, name) -> Optional.ofNullable(accounts.get(namespace + "/" + name));

  @Test
  void aTokenItIssuedAuthenticatesAsItsServiceAccountWithItsGroups() {
    ServiceAccountTokens.Issued issued = tokens.issue("team-a", "ci", "uid-1", List.of(), Duration.ofHours(1));
    assertThat(issued.token()).matches("[A-Za-z0-9_-]{43}");
    assertThat(issued.expiresAt()).isEqualTo(NOW.plus(Duration.ofHours(1)));
    assertThat(issued.toString()).doesNotContain(issued.token());

    ServiceAccountTokens.Review review = tokens.review(issued.token(), List.of(), lookup);
    assertThat(review.error()).isEmpty();
    assertThat(review.user()).contains(new UserInfo("system:serviceaccount:team-a:ci", "uid-1",
        List.of("system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated")));
    assertThat(review.audiences()).containsExactly(ServiceAccountTokens.API_AUDIENCE);
  }

  @Test
  void aTokenItDidNotIssueDoesNot() {
    ServiceAccountTokens.Review review = tokens.review("made-up", List.of(), lookup);
    assertThat(review.authenticated()).isFalse();
    assertThat(review.error()).contains("not issued by this dev API");
  }

  @Test
  void anExpiredTokenDoesNot() {
    String token = tokens.issue("team-a", "ci", "uid-1", List.of(), Duration.ofMinutes(10)).token();
    now = NOW.plus(Duration.ofMinutes(10));
    assertThat(tokens.review(token, List.of(), lookup).error()).contains("expired at 2026-12-04T10:10:00Z");
  }

  @Test
  void audiencesMustMeet() {
    String token = tokens.issue("team-a", "ci", "uid-1", List.of("baton", "other"), Duration.ofHours(1)).token();
    assertThat(tokens.review(token, List.of("baton"), lookup).audiences()).containsExactly("baton");
    assertThat(tokens.review(token, List.of("elsewhere"), lookup).error())
        .contains("token audiences [baton, other] are invalid for the target audiences [elsewhere]");
    // no audience asked: the API server's, which this token is not for
    assertThat(tokens.review(token, List.of(), lookup).authenticated()).isFalse();
  }

  @Test
  void aTokenDiesWithItsServiceAccountEvenWhenOneOfTheSameNameIsCreatedAgain() {
    String token = tokens.issue("team-a", "ci", "uid-1", List.of(), Duration.ofHours(1)).token();
    accounts.remove("team-a/ci");
    assertThat(tokens.review(token, List.of(), lookup).error()).contains("service account team-a/ci has been deleted");
    accounts.put("team-a/ci", "uid-2");
    assertThat(tokens.review(token, List.of(), lookup).error()).contains("was deleted and created again");
  }
}
