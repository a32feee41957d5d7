package dev.baton.runtime.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.utils.ResponseProvider;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A cluster's authentication and RBAC as far as the runtime asks them, answered by the mock API server: a
 * TokenReview knows the tokens it was given ({@link #token}), a SubjectAccessReview allows what was granted
 * ({@link #allow}: a RoleBinding in a namespace, or with {@link #EVERY_NAMESPACE} a ClusterRoleBinding). Until the
 * dev API serves ServiceAccounts, tokens and RBAC itself, this is the Kubernetes API of the runtime's Kubernetes mode
 * in tests. {@link #down} makes both reviews answer 503.
 */
final class FakeClusterAuth {

  static final String EVERY_NAMESPACE = "*";
  static final String TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
  static final String ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, String> users = new ConcurrentHashMap<>();
  private final Set<String> grants = ConcurrentHashMap.newKeySet();
  final AtomicInteger tokenReviews = new AtomicInteger();
  final AtomicInteger accessReviews = new AtomicInteger();
  volatile boolean down;

  /** A token the cluster accepts, and whose it is. */
  FakeClusterAuth token(String token, String user) {
    users.put(token, user);
    return this;
  }

  /** RBAC allows {@code user} to {@code verb} {@code resource} (e.g. {@code workflows/instances}) in a namespace. */
  FakeClusterAuth allow(String user, String verb, String resource, String namespace) {
    grants.add(user + " " + verb + " " + resource + " " + namespace);
    return this;
  }

  /** The mock server's canned answers to the two reviews (set before its first request). */
  Consumer<KubernetesMockServer> expectations() {
    return server -> {
      server.expect().post().withPath(TOKEN_REVIEWS).andReply(answer(this::tokenReview)).always();
      server.expect().post().withPath(ACCESS_REVIEWS).andReply(answer(this::accessReview)).always();
    };
  }

  private String tokenReview(JsonNode review) {
    tokenReviews.incrementAndGet();
    String user = users.get(review.at("/spec/token").asText());
    ObjectNode status = ((ObjectNode) review).putObject("status");
    status.put("authenticated", user != null);
    if (user != null) {
      ObjectNode u = status.putObject("user");
      u.put("username", user);
      u.put("uid", "uid-" + user.hashCode());
      u.putArray("groups").add("system:authenticated");
    } else {
      status.put("error", "invalid bearer token");
    }
    return review.toString();
  }

  private String accessReview(JsonNode review) {
    accessReviews.incrementAndGet();
    JsonNode a = review.at("/spec/resourceAttributes");
    String resource = a.path("resource").asText() + (a.hasNonNull("subresource") ? "/" + a.get("subresource").asText()
        : "");
    String asked = review.at("/spec/user").asText() + " " + a.path("verb").asText() + " " + resource;
    String namespace = a.path("namespace").asText("");
    boolean allowed = "baton.dev".equals(a.path("group").asText())
        && (grants.contains(asked + " " + EVERY_NAMESPACE) || !namespace.isEmpty()
            && grants.contains(asked + " " + namespace));
    ObjectNode status = ((ObjectNode) review).putObject("status");
    status.put("allowed", allowed);
    if (!allowed) {
      status.put("reason", "no RBAC policy matched");
    }
    return review.toString();
  }

  private ResponseProvider<Object> answer(Function<JsonNode, String> reviewed) {
    return new ResponseProvider<>() {
      private Headers headers = new Headers.Builder().build();

      @Override
      public int getStatusCode(RecordedRequest request) {
        return down ? 503 : 201;
      }

      @Override
      public Object getBody(RecordedRequest request) {
        if (down) {
          return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":503,"
              + "\"reason\":\"ServiceUnavailable\"}";
        }
        try {
          return reviewed.apply(JSON.readTree(request.getUtf8Body()));
        } catch (java.io.IOException e) {
          throw new UncheckedIOException(e);
        }
      }

      @Override
      public Headers getHeaders() {
        return headers;
      }

      @Override
      public void setHeaders(Headers headers) {
        this.headers = headers;
      }
    };
  }
}
