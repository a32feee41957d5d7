package dev.baton.runtime.http.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** With BATON_AUTH_AUDIENCES, only a token made for one of them is accepted, and the review asks for them. */
class TokenAudiencesTest {

  final List<TokenReview> asked = new ArrayList<>();

  TokenReviewAuthenticator answering(List<String> audiences, List<String> answered) {
    return new TokenReviewAuthenticator(review -> {
      asked.add(review);
      return new TokenReviewBuilder(review).withNewStatus().withAuthenticated(true).withAudiences(answered)
          .withNewUser().withUsername("system:serviceaccount:team-a:ci").endUser().endStatus().build();
    }, new ExpiringCache<>(10), audiences);
  }

  @Test
  void aTokenForBatonIsAcceptedAndTheReviewAskedForBaton() {
    assertThat(answering(List.of("baton"), List.of("baton")).authenticate("t-1")).isPresent();
    assertThat(asked.get(0).getSpec().getAudiences()).containsExactly("baton");
  }

  @Test
  void aTokenForAnotherAudienceOrAnAnswerWithoutAudiencesIsRefused() {
    assertThat(answering(List.of("baton"), List.of("https://kubernetes.default.svc")).authenticate("t-2")).isEmpty();
    assertThat(answering(List.of("baton"), null).authenticate("t-3")).isEmpty();
  }

  @Test
  void withoutAudiencesTheApiServersOwnAreAskedFor() {
    assertThat(answering(List.of(), null).authenticate("t-4")).isPresent();
    assertThat(asked.get(0).getSpec().getAudiences()).isNullOrEmpty();
  }
}
