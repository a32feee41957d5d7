package dev.baton.runtime.http.auth;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bearer token's owner, as the cluster's own authentication says in a TokenReview: a ServiceAccount token
 * ({@code kubectl create token}), or an OIDC token the API server accepts. Answers are kept for seconds, keyed by
 * the token's SHA-256: a token revoked or expired is refused within {@link #ACCEPTED_FOR}; a refusal is kept shorter,
 * so a token that was just made works at once, while a client sending a bad token in a loop costs the API server one
 * review every {@link #REFUSED_FOR}.
 */
public final class TokenReviewAuthenticator implements Authenticator {

  private static final Logger LOG = LoggerFactory.getLogger(TokenReviewAuthenticator.class);
  static final String KIND = "tokenreviews.authentication.k8s.io";
  public static final Duration ACCEPTED_FOR = Duration.ofSeconds(10);
  public static final Duration REFUSED_FOR = Duration.ofSeconds(2);
  static final int CAPACITY = 10_000;

  private final UnaryOperator<TokenReview> api;
  private final ExpiringCache<String, Optional<Caller>> answers;
  private final List<String> audiences;

  /**
   * Reviews through the runtime's own client of the API server.
   *
   * @param audiences the audiences a token must be for (one of them); empty: the API server's own
   */
  public TokenReviewAuthenticator(KubernetesClient client, List<String> audiences) {
    this(review -> client.authentication().v1().tokenReviews().create(review), new ExpiringCache<>(CAPACITY),
        audiences);
  }

  /** @param api creates a TokenReview and returns the API server's answer */
  TokenReviewAuthenticator(UnaryOperator<TokenReview> api, ExpiringCache<String, Optional<Caller>> answers) {
    this(api, answers, List.of());
  }

  TokenReviewAuthenticator(UnaryOperator<TokenReview> api, ExpiringCache<String, Optional<Caller>> answers,
      List<String> audiences) {
    this.api = api;
    this.answers = answers;
    this.audiences = List.copyOf(audiences);
  }

  @Override
  public Optional<Caller> authenticate(String token) {
    String key = TokenDigest.of(token);
    Optional<Caller> known = answers.get(key);
    if (known != null) {
      return known;
    }
    // With audiences, a token made for Baton (a projected ServiceAccount token with that audience) is accepted and
    // one made for the API server is not: a token a client hands the runtime cannot be replayed against the cluster.
    TokenReview review = new TokenReviewBuilder().withNewSpec().withToken(token)
        .withAudiences(audiences.isEmpty() ? null : audiences).endSpec().build();
    TokenReview answer = KubernetesReviews.ask(KIND, token, LOG, () -> api.apply(review));
    Optional<Caller> caller = callerOf(answer.getStatus(), audiences);
    if (caller.isEmpty() && answer.getStatus() != null && answer.getStatus().getError() != null) {
      LOG.debug("A token was refused by the TokenReview: {}",
          KubernetesReviews.scrub(answer.getStatus().getError(), token));
    }
    answers.put(key, caller, caller.isPresent() ? ACCEPTED_FOR : REFUSED_FOR);
    return caller;
  }

  /** The user a review accepted, or empty: not authenticated, or no user name to hold anyone to. */
  static Optional<Caller> callerOf(TokenReviewStatus status, List<String> audiences) {
    if (status == null || !Boolean.TRUE.equals(status.getAuthenticated()) || status.getUser() == null) {
      return Optional.empty();
    }
    // An authenticator that ignores audiences says so by answering none (Kubernetes' API docs): then it vouched for
    // a token of any audience, which is not what was asked.
    if (!audiences.isEmpty() && (status.getAudiences() == null
        || status.getAudiences().stream().noneMatch(audiences::contains))) {
      return Optional.empty();
    }
    UserInfo user = status.getUser();
    if (user.getUsername() == null || user.getUsername().isBlank()) {
      return Optional.empty();
    }
    return Optional.of(new Caller(user.getUsername(), user.getUid(), user.getGroups(), user.getExtra()));
  }
}
