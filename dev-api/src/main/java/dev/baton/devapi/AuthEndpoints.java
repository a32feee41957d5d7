package dev.baton.devapi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import dev.baton.devapi.auth.ServiceAccountTokens;
import dev.baton.devapi.rbac.AccessRequest;
import dev.baton.devapi.rbac.Decision;
import dev.baton.devapi.rbac.RbacAuthorizer;
import dev.baton.devapi.rbac.RbacPolicy;
import dev.baton.devapi.rbac.UserInfo;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestSpec;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestStatusBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewSpec;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatusBuilder;
import io.fabric8.kubernetes.api.model.authentication.UserInfoBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.LocalSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.NonResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewSpec;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewSpec;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatus;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatusBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a cluster answers about identities and access, for tools that use the dev API as their Kubernetes
 * ({@code BATON_AUTH=kubernetes}):
 *
 * <ul>
 *   <li>{@code POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token} (TokenRequest, {@code kubectl create
 *       token}) issues a token for a stored ServiceAccount ({@link ServiceAccountTokens}).</li>
 *   <li>{@code POST /apis/authentication.k8s.io/v1/tokenreviews} says who a token it issued belongs to.</li>
 *   <li>{@code POST /apis/authorization.k8s.io/v1/subjectaccessreviews} (and the local and self kinds) decides with
 *       {@link RbacAuthorizer} over the stored Roles, ClusterRoles and bindings. A SelfSubjectAccessReview is about
 *       the caller, which is the dev API's admin unless it impersonates someone ({@code kubectl auth can-i --as}).</li>
 * </ul>
 *
 * Everything else about identities is stored as any object is: ServiceAccounts, Roles and bindings are plain CRUD.
 */
final class AuthEndpoints {

  /** A status code and the body to answer with. */
  record Answer(int code, JsonNode body) {}

  private static final String RBAC = "/apis/rbac.authorization.k8s.io/v1/";
  private static final long MAX_LIFETIME_SECONDS = 1L << 32;

  private final ServiceAccountTokens tokens;
  private final Function<String, JsonNode> store;

  /**
   * @param store reads a stored object or list by its API path, null when there is none
   */
  AuthEndpoints(Clock clock, Function<String, JsonNode> store) {
    this.tokens = new ServiceAccountTokens(clock);
    this.store = store;
  }

  /**
   * The answer when the request is one of these endpoints' (a POST), else empty. Reads the request's body only
   * when it answers (reading it consumes it).
   */
  Optional<Answer> answer(RecordedRequest request, ApiPath path) {
    if (!"POST".equals(request.getMethod()) || !path.isResource() || !"v1".equals(path.version())) {
      return Optional.empty();
    }
    String resource = path.group() + "/" + path.plural();
    if (resource.equals("/serviceaccounts") && "token".equals(path.subresource()) && path.namespace() != null) {
      return Optional.of(tokenRequest(path.namespace(), path.name(), read(request, TokenRequest.class)));
    }
    if (path.name() != null) {
      return Optional.empty();
    }
    return switch (resource) {
      case "authentication.k8s.io/tokenreviews" -> Optional.of(tokenReview(read(request, TokenReview.class)));
      case "authorization.k8s.io/subjectaccessreviews" ->
          Optional.of(subjectAccessReview(read(request, SubjectAccessReview.class)));
      case "authorization.k8s.io/localsubjectaccessreviews" ->
          Optional.of(localSubjectAccessReview(path.namespace(), read(request, LocalSubjectAccessReview.class)));
      case "authorization.k8s.io/selfsubjectaccessreviews" ->
          Optional.of(selfSubjectAccessReview(request, read(request, SelfSubjectAccessReview.class)));
      default -> Optional.empty();
    };
  }

  // ---- TokenRequest ----------------------------------------------------------------------------------------------

  private Answer tokenRequest(String namespace, String name, TokenRequest request) {
    Optional<String> uid = serviceAccountUid(namespace, name);
    if (uid.isEmpty()) {
      return new Answer(404, ApiStatus.notFound("serviceaccounts", "", name));
    }
    TokenRequestSpec spec = request.getSpec() == null ? new TokenRequestSpec() : request.getSpec();
    if (spec.getBoundObjectRef() != null) {
      // A cluster checks the bound object (a Pod, a Secret) still exists; no such objects live here.
      return new Answer(400, ApiStatus.badRequest("the Baton dev API does not issue tokens bound to an object"
          + " (--bound-object-kind): create the token without it"));
    }
    long seconds = spec.getExpirationSeconds() == null ? ServiceAccountTokens.DEFAULT_LIFETIME.toSeconds()
        : spec.getExpirationSeconds();
    if (seconds < ServiceAccountTokens.MIN_LIFETIME.toSeconds() || seconds > MAX_LIFETIME_SECONDS) {
      String limit = seconds > MAX_LIFETIME_SECONDS ? "may not specify a duration larger than 2^32 seconds"
          : "may not specify a duration less than 10 minutes";
      return new Answer(422, ApiStatus.invalid("TokenRequest", "authentication.k8s.io", name,
          List.of(new ApiStatus.Cause("spec.expirationSeconds", "Invalid value: " + seconds + ": " + limit))));
    }
    ServiceAccountTokens.Issued issued =
        tokens.issue(namespace, name, uid.get(), spec.getAudiences(), Duration.ofSeconds(seconds));
    spec.setAudiences(issued.audiences());
    spec.setExpirationSeconds(seconds);
    request.setSpec(spec);
    request.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
    request.setStatus(new TokenRequestStatusBuilder().withToken(issued.token())
        .withExpirationTimestamp(issued.expiresAt().toString()).build());
    return created(request);
  }

  private Optional<String> serviceAccountUid(String namespace, String name) {
    JsonNode account = store.apply("/api/v1/namespaces/" + namespace + "/serviceaccounts/" + name);
    return account == null ? Optional.empty() : Optional.of(account.path("metadata").path("uid").asText(""));
  }

  // ---- TokenReview -----------------------------------------------------------------------------------------------

  private Answer tokenReview(TokenReview review) {
    TokenReviewSpec spec = review.getSpec();
    if (spec == null || spec.getToken() == null || spec.getToken().isEmpty()) {
      return new Answer(400, ApiStatus.badRequest("token is required for TokenReview in authentication"));
    }
    ServiceAccountTokens.Review result = tokens.review(spec.getToken(), spec.getAudiences(), this::serviceAccountUid);
    TokenReviewStatusBuilder status = new TokenReviewStatusBuilder().withAuthenticated(result.authenticated());
    result.user().ifPresent(user -> status.withUser(new UserInfoBuilder().withUsername(user.name())
        .withUid(user.uid()).withGroups(user.groups()).build()).withAudiences(result.audiences()));
    if (!result.error().isEmpty()) {
      status.withError(result.error());
    }
    review.setStatus(status.build());
    return created(review);
  }

  // ---- SubjectAccessReview ---------------------------------------------------------------------------------------

  private Answer subjectAccessReview(SubjectAccessReview review) {
    SubjectAccessReviewSpec spec = review.getSpec() == null ? new SubjectAccessReviewSpec() : review.getSpec();
    List<ApiStatus.Cause> causes = attributesCauses(spec.getResourceAttributes(), spec.getNonResourceAttributes());
    if (empty(spec.getUser()) && (spec.getGroups() == null || spec.getGroups().isEmpty())) {
      causes.add(new ApiStatus.Cause("spec.user", "Invalid value: \"\": at least one of user or group must be specified"));
    }
    if (!causes.isEmpty()) {
      return new Answer(422, ApiStatus.invalid("SubjectAccessReview", "authorization.k8s.io", "", causes));
    }
    review.setStatus(decide(new UserInfo(spec.getUser(), spec.getUid(), spec.getGroups()),
        spec.getResourceAttributes(), spec.getNonResourceAttributes()));
    return created(review);
  }

  private Answer localSubjectAccessReview(String namespace, LocalSubjectAccessReview review) {
    SubjectAccessReviewSpec spec = review.getSpec() == null ? new SubjectAccessReviewSpec() : review.getSpec();
    ResourceAttributes attributes = spec.getResourceAttributes();
    if (namespace == null || attributes == null || spec.getNonResourceAttributes() != null
        || !namespace.equals(attributes.getNamespace())) {
      return new Answer(422, ApiStatus.invalid("LocalSubjectAccessReview", "authorization.k8s.io", "", List.of(
          new ApiStatus.Cause("spec.resourceAttributes.namespace", "must be the namespace of the request, "
              + namespace + ", and there must be no nonResourceAttributes"))));
    }
    SubjectAccessReview asked = new SubjectAccessReviewBuilder().withSpec(spec).build();
    Answer answer = subjectAccessReview(asked);
    if (answer.code() == 201) {
      review.setStatus(asked.getStatus());
      return created(review);
    }
    return answer;
  }

  private Answer selfSubjectAccessReview(RecordedRequest request, SelfSubjectAccessReview review) {
    SelfSubjectAccessReviewSpec spec = review.getSpec() == null ? new SelfSubjectAccessReviewSpec() : review.getSpec();
    List<ApiStatus.Cause> causes = attributesCauses(spec.getResourceAttributes(), spec.getNonResourceAttributes());
    if (!causes.isEmpty()) {
      return new Answer(422, ApiStatus.invalid("SelfSubjectAccessReview", "authorization.k8s.io", "", causes));
    }
    Optional<UserInfo> caller = impersonated(request);
    if (caller.isEmpty() && !request.getHeaders().headers("Impersonate-Group").isEmpty()) {
      return new Answer(400, ApiStatus.badRequest("impersonating groups requires impersonating a user (--as)"));
    }
    review.setStatus(decide(caller.orElse(UserInfo.ADMIN), spec.getResourceAttributes(),
        spec.getNonResourceAttributes()));
    return created(review);
  }

  /**
   * The user of {@code Impersonate-User} and {@code Impersonate-Group} ({@code kubectl --as --as-group}). As on a
   * cluster, a ServiceAccount impersonated without groups gets its own groups, and every impersonated user is in
   * {@code system:authenticated}. Only access reviews honour impersonation: every other request acts as the admin.
   */
  private static Optional<UserInfo> impersonated(RecordedRequest request) {
    String name = request.getHeader("Impersonate-User");
    if (empty(name)) {
      return Optional.empty();
    }
    List<String> groups = new ArrayList<>(request.getHeaders().headers("Impersonate-Group"));
    if (groups.isEmpty()) {
      UserInfo.serviceAccountNamespace(name).ifPresent(namespace -> {
        groups.add(UserInfo.ALL_SERVICE_ACCOUNTS);
        groups.add(UserInfo.namespaceGroup(namespace));
      });
    }
    if (!groups.contains(UserInfo.AUTHENTICATED) && !groups.contains("system:unauthenticated")) {
      groups.add(UserInfo.AUTHENTICATED);
    }
    return Optional.of(new UserInfo(name, request.getHeader("Impersonate-Uid"), groups));
  }

  private static List<ApiStatus.Cause> attributesCauses(ResourceAttributes resource, NonResourceAttributes other) {
    List<ApiStatus.Cause> causes = new ArrayList<>();
    if ((resource == null) == (other == null)) {
      causes.add(new ApiStatus.Cause("spec.resourceAttributes",
          "Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified"));
    }
    return causes;
  }

  private SubjectAccessReviewStatus decide(UserInfo user, ResourceAttributes resource, NonResourceAttributes other) {
    AccessRequest access = resource != null
        ? AccessRequest.resource(resource.getVerb(), resource.getGroup(), resource.getResource(),
            resource.getSubresource(), resource.getNamespace(), resource.getName())
        : AccessRequest.nonResource(other.getVerb(), other.getPath());
    Decision decision = new RbacAuthorizer(policy()).authorize(user, access);
    // denied stays false (RBAC only grants), and is written rather than left out so no client reads a null.
    return new SubjectAccessReviewStatusBuilder().withAllowed(decision.allowed()).withDenied(false)
        .withReason(decision.reason())
        .withEvaluationError(decision.evaluationError().isEmpty() ? null : decision.evaluationError()).build();
  }

  /** The RBAC objects as stored right now: a binding applied a moment ago counts. */
  private RbacPolicy policy() {
    return new RbacPolicy(list("roles", Role.class), list("clusterroles", ClusterRole.class),
        list("rolebindings", RoleBinding.class), list("clusterrolebindings", ClusterRoleBinding.class));
  }

  private <T> List<T> list(String plural, Class<T> type) {
    JsonNode list = store.apply(RBAC + plural);
    List<T> items = new ArrayList<>();
    if (list != null) {
      list.path("items").forEach(item -> items.add(Json.MAPPER.convertValue(item, type)));
    }
    return items;
  }

  // ---- helpers ---------------------------------------------------------------------------------------------------

  private static <T> T read(RecordedRequest request, Class<T> type) {
    String body = request.getUtf8Body();
    try {
      return Json.MAPPER.readValue(body == null || body.isBlank() ? "{}" : body, type);
    } catch (JsonProcessingException e) {
      // Not Jackson's message: it may quote the body, and a TokenReview's body is a token.
      throw new IllegalArgumentException("the body is not a " + type.getSimpleName() + " in JSON (line "
          + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")");
    }
  }

  private static Answer created(Object object) {
    return new Answer(201, Json.MAPPER.valueToTree(object));
  }

  private static boolean empty(String s) {
    return s == null || s.isEmpty();
  }
}
