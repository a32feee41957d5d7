package dev.baton.helm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.sandbox.MockKubernetes;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

/**
 * In front of the fabric8 mock API server's CRUD store ({@link MockKubernetes.Interceptor}), noting every request by
 * User-Agent as the API server's authorizer would see it ({@link ApiRequest}). It can also answer chosen requests
 * itself (what the mock does not serve, such as SelfSubjectRulesReviews and KEDA's discovery document) and stands in
 * for server-side apply, which the mock lacks.
 */
final class RequestRecorder implements MockKubernetes.Interceptor {

  private static final String APPLY_PATCH = "application/apply-patch";
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ConcurrentLinkedQueue<ApiRequest> requests = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> nonResourceRequests = new ConcurrentLinkedQueue<>();
  private final Map<String, Function<RecordedRequest, MockResponse>> answers = new ConcurrentHashMap<>();

  /** Answers {@code METHOD path} (without query) with the function instead of the CRUD store. */
  void answer(String method, String path, Function<RecordedRequest, MockResponse> answer) {
    answers.put(method + " " + path, answer);
  }

  @Override
  public MockResponse dispatch(RecordedRequest request, Dispatcher mock) {
    String agent = String.valueOf(request.getHeader("User-Agent"));
    String path = request.getPath();
    Optional<ApiRequest> parsed = ApiRequest.parse(agent, request.getMethod(), path);
    parsed.ifPresentOrElse(requests::add, () -> nonResourceRequests.add(agent + " " + request.getMethod() + " " + path));
    String plainPath = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    Function<RecordedRequest, MockResponse> answer = answers.get(request.getMethod() + " " + plainPath);
    if (answer != null) {
      return answer.apply(request);
    }
    String contentType = request.getHeader("Content-Type");
    if (parsed.isPresent() && "PATCH".equals(request.getMethod()) && contentType != null
        && contentType.startsWith(APPLY_PATCH)) {
      return serverSideApply(request, parsed.get(), plainPath, mock);
    }
    return mock.dispatch(request);
  }

  /** Everything the client with that User-Agent asked for, in order. */
  List<ApiRequest> requests(String agent) {
    return requests.stream().filter(r -> r.agent().startsWith(agent)).toList();
  }

  /** The permissions those requests need, whatever the names. */
  Set<Permission> permissions(String agent) {
    Set<Permission> out = new TreeSet<>();
    requests(agent).forEach(r -> out.add(r.permission()));
    return out;
  }

  /** Its requests that are not resource requests (discovery such as /api, /apis, /apis/GROUP/VERSION). */
  List<String> nonResourceRequests(String agent) {
    return nonResourceRequests.stream().filter(r -> r.startsWith(agent)).map(r -> r.substring(agent.length() + 1))
        .toList();
  }

  /**
   * The mock server has no server-side apply (it answers 415). A stand-in good enough to run the code that uses it:
   * an apply to an existing object becomes an update of the object with the applied fields merged in (maps merge,
   * lists are replaced); an apply to a missing object becomes a create. The API server authorises an apply that
   * creates as create too, so that is noted as well.
   */
  private MockResponse serverSideApply(RecordedRequest request, ApiRequest apply, String path, Dispatcher mock) {
    boolean subresource = apply.permission().resource().contains("/");
    String objectPath = subresource ? path.substring(0, path.lastIndexOf('/')) : path;
    try {
      JsonNode applied = YAML.readTree(request.getBody().getBytes());
      Headers headers = request.getHeaders().newBuilder().removeAll("content-type").removeAll("Content-Type")
          .add("Content-Type", "application/json").build();
      MockResponse current = mock.dispatch(new RecordedRequest(request.getHttpVersion(), HttpMethod.GET, objectPath,
          headers, new Buffer()));
      if (current.code() == 200) {
        JsonNode merged = Chart.merge(JSON.readTree(current.getBody().readUtf8()), applied);
        return mock.dispatch(new RecordedRequest(request.getHttpVersion(), HttpMethod.PUT, path, headers,
            new Buffer(JSON.writeValueAsBytes(merged))));
      }
      requests.add(apply.as("create"));
      return mock.dispatch(new RecordedRequest(request.getHttpVersion(), HttpMethod.POST,
          objectPath.substring(0, objectPath.lastIndexOf('/')), headers, new Buffer(JSON.writeValueAsBytes(applied))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A JSON response. */
  static MockResponse json(int code, Object body) {
    try {
      return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
          .setBody(JSON.writeValueAsString(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode body(RecordedRequest request) {
    try {
      return JSON.readTree(request.getBody().getBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
