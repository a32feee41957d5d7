package dev.baton.runtime.http.auth;

import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes RBAC's answer (or whatever authorizer the cluster runs), asked with a SubjectAccessReview about the
 * caller as its TokenReview described it: user, uid, groups and extra. Kept for seconds per caller and question: a
 * RoleBinding removed stops working within {@link #ALLOWED_FOR}; one added works within {@link #DENIED_FOR}.
 */
public final class SubjectAccessReviewAuthorizer implements Authorizer {

  private static final Logger LOG = LoggerFactory.getLogger(SubjectAccessReviewAuthorizer.class);
  static final String KIND = "subjectaccessreviews.authorization.k8s.io";
  public static final Duration ALLOWED_FOR = Duration.ofSeconds(10);
  public static final Duration DENIED_FOR = Duration.ofSeconds(2);
  static final int CAPACITY = 10_000;

  /** What is cached: one caller's one question. */
  record Question(Caller caller, AccessRequest request) {}

  private final UnaryOperator<SubjectAccessReview> api;
  private final ExpiringCache<Question, Boolean> answers;

  /** Reviews through the runtime's own client of the API server. */
  public SubjectAccessReviewAuthorizer(KubernetesClient client) {
    this(review -> client.authorization().v1().subjectAccessReview().create(review),
        new ExpiringCache<>(CAPACITY));
  }

  /** @param api creates a SubjectAccessReview and returns the API server's answer */
  SubjectAccessReviewAuthorizer(UnaryOperator<SubjectAccessReview> api, ExpiringCache<Question, Boolean> answers) {
    this.api = api;
    this.answers = answers;
  }

  @Override
  public boolean allows(Caller caller, AccessRequest request) {
    Question q = new Question(caller, request);
    Boolean known = answers.get(q);
    if (known != null) {
      return known;
    }
    SubjectAccessReview review = review(caller, request);
    SubjectAccessReview answer = KubernetesReviews.ask(KIND, null, LOG, () -> api.apply(review));
    boolean allowed = answer.getStatus() != null && Boolean.TRUE.equals(answer.getStatus().getAllowed());
    if (!allowed && answer.getStatus() != null && answer.getStatus().getEvaluationError() != null) {
      LOG.debug("RBAC could not evaluate {} for {}: {}", request, caller.user(),
          answer.getStatus().getEvaluationError());
    }
    answers.put(q, allowed, allowed ? ALLOWED_FOR : DENIED_FOR);
    return allowed;
  }

  /** The review of a question: the caller's identity and the request's resource attributes. */
  static SubjectAccessReview review(Caller caller, AccessRequest request) {
    return new SubjectAccessReviewBuilder().withNewSpec()
        .withUser(caller.user())
        .withUid(caller.uid())
        .withGroups(caller.groups())
        .withExtra(caller.extra())
        .withNewResourceAttributes()
        .withGroup(request.group())
        .withResource(request.resource())
        .withSubresource(request.subresource())
        .withVerb(request.verb())
        .withNamespace(request.clusterWide() ? null : request.namespace())
        .withName(request.name())
        .endResourceAttributes()
        .endSpec().build();
  }
}
