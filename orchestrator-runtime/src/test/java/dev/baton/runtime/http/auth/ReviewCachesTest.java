package dev.baton.runtime.http.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The answers of the Kubernetes API are kept for seconds, not minutes: a TokenReview and a SubjectAccessReview ten
 * seconds, a refusal two; keyed by the token's digest, never the token; failures are never kept.
 */
class ReviewCachesTest {

  static final String TOKEN = "eyJhbGciOiJSUzI1NiJ9.team-a-ci.signature";

  final AtomicLong now = new AtomicLong();
  final List<TokenReview> tokenReviews = new ArrayList<>();
  final List<SubjectAccessReview> accessReviews = new ArrayList<>();
  boolean tokenValid = true;
  boolean allowed = true;
  RuntimeException apiFailure;

  final ExpiringCache<String, Optional<Caller>> tokens = new ExpiringCache<>(100, now::get);
  final TokenReviewAuthenticator authenticator = new TokenReviewAuthenticator(review -> {
    tokenReviews.add(review);
    if (apiFailure != null) {
      throw apiFailure;
    }
    return new TokenReviewBuilder(review).withNewStatus().withAuthenticated(tokenValid)
        .withNewUser().withUsername("system:serviceaccount:team-a:ci").withUid("uid-1")
        .withGroups("system:serviceaccounts", "system:authenticated")
        .withExtra(Map.of("authentication.kubernetes.io/pod-name", List.of("ci-7")))
        .endUser().endStatus().build();
  }, tokens);

  final SubjectAccessReviewAuthorizer authorizer = new SubjectAccessReviewAuthorizer(review -> {
    accessReviews.add(review);
    if (apiFailure != null) {
      throw apiFailure;
    }
    return new SubjectAccessReviewBuilder(review).withNewStatus().withAllowed(allowed).endStatus().build();
  }, new ExpiringCache<>(100, now::get));

  static final AccessRequest START = new AccessRequest("create", "baton.dev", "workflows", "instances", "team-a",
      "order-fulfilment");

  void pass(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void aTokenIsReviewedOnceInTenSecondsAndItsUserIsAllTheReviewSaid() {
    Caller first = authenticator.authenticate(TOKEN).orElseThrow();
    pass(Duration.ofSeconds(9));
    authenticator.authenticate(TOKEN);
    assertThat(tokenReviews).hasSize(1);
    assertThat(tokenReviews.get(0).getSpec().getToken()).isEqualTo(TOKEN);
    assertThat(first.user()).isEqualTo("system:serviceaccount:team-a:ci");
    assertThat(first.uid()).isEqualTo("uid-1");
    assertThat(first.groups()).containsExactly("system:serviceaccounts", "system:authenticated");
    assertThat(first.extra()).containsKey("authentication.kubernetes.io/pod-name");

    pass(Duration.ofSeconds(1));
    authenticator.authenticate(TOKEN);
    assertThat(tokenReviews).as("reviewed again after ten seconds").hasSize(2);
  }

  @Test
  void theCacheIsKeyedByTheTokensDigestNeverTheToken() {
    authenticator.authenticate(TOKEN);

    assertThat(tokens.get(TokenDigest.of(TOKEN))).isPresent();
    assertThat(tokens.get(TOKEN)).isNull();
    assertThat(TokenDigest.of(TOKEN)).hasSize(64).doesNotContain("team-a");
  }

  @Test
  void aRefusedTokenIsKeptForTwoSecondsOnly() {
    tokenValid = false;
    assertThat(authenticator.authenticate(TOKEN)).isEmpty();
    pass(Duration.ofMillis(1_900));
    assertThat(authenticator.authenticate(TOKEN)).isEmpty();
    assertThat(tokenReviews).hasSize(1);

    tokenValid = true;
    pass(Duration.ofMillis(100));
    assertThat(authenticator.authenticate(TOKEN)).isPresent();
    assertThat(tokenReviews).hasSize(2);
  }

  @Test
  void anApiServerThatFailsIsA503AndNothingIsKept() {
    apiFailure = new KubernetesClientException("Service Unavailable", 503, null);
    assertThatThrownBy(() -> authenticator.authenticate(TOKEN)).isInstanceOf(ReviewUnavailable.class)
        .hasMessageNotContaining(TOKEN);
    assertThatThrownBy(() -> authorizer.allows(AccessGateTest.CI, START)).isInstanceOf(ReviewUnavailable.class);

    apiFailure = null;
    assertThat(authenticator.authenticate(TOKEN)).isPresent();
    assertThat(tokenReviews).as("asked again at once").hasSize(2);
  }

  @Test
  void aRuntimeThatMayNotAskSaysSoWithoutTheToken() {
    apiFailure = new KubernetesClientException("tokenreviews is forbidden for " + TOKEN, 403, null);

    assertThatThrownBy(() -> authenticator.authenticate(TOKEN)).isInstanceOf(ReviewUnavailable.class)
        .hasMessageContaining("create tokenreviews.authentication.k8s.io").hasMessageNotContaining(TOKEN);
  }

  @Test
  void aDecisionIsAskedOncePerCallerAndQuestionInTenSeconds() {
    assertThat(authorizer.allows(AccessGateTest.CI, START)).isTrue();
    assertThat(authorizer.allows(AccessGateTest.CI, START)).isTrue();
    authorizer.allows(AccessGateTest.CI, new AccessRequest("delete", "baton.dev", "workflows", "instances", "team-a",
        "order-fulfilment"));
    assertThat(accessReviews).hasSize(2);

    pass(Duration.ofSeconds(10));
    authorizer.allows(AccessGateTest.CI, START);
    assertThat(accessReviews).hasSize(3);
  }

  @Test
  void aDenialIsKeptForTwoSecondsSoAGrantWorksAtOnce() {
    allowed = false;
    assertThat(authorizer.allows(AccessGateTest.CI, START)).isFalse();
    allowed = true;
    pass(Duration.ofSeconds(2));

    assertThat(authorizer.allows(AccessGateTest.CI, START)).isTrue();
    assertThat(accessReviews).hasSize(2);
  }

  @Test
  void theReviewAsksAboutTheCallerAsItsTokenReviewDescribedIt() {
    Caller ci = authenticator.authenticate(TOKEN).orElseThrow();
    authorizer.allows(ci, START);
    authorizer.allows(ci, new AccessRequest("list", "baton.dev", "workflows", "instances", "", null));

    SubjectAccessReview review = accessReviews.get(0);
    assertThat(review.getSpec().getUser()).isEqualTo("system:serviceaccount:team-a:ci");
    assertThat(review.getSpec().getUid()).isEqualTo("uid-1");
    assertThat(review.getSpec().getGroups()).containsExactly("system:serviceaccounts", "system:authenticated");
    assertThat(review.getSpec().getExtra()).containsKey("authentication.kubernetes.io/pod-name");
    var attributes = review.getSpec().getResourceAttributes();
    assertThat(List.of(attributes.getGroup(), attributes.getResource(), attributes.getSubresource(),
        attributes.getVerb(), attributes.getNamespace(), attributes.getName()))
        .containsExactly("baton.dev", "workflows", "instances", "create", "team-a", "order-fulfilment");
    assertThat(accessReviews.get(1).getSpec().getResourceAttributes().getNamespace())
        .as("cluster-wide: no namespace").isNull();
  }
}
