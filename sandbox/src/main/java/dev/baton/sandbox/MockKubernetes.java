package dev.baton.sandbox;

import dev.baton.api.client.TolerantSerialization;
import dev.baton.api.crd.CommittedCrds;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.CustomResourceAware;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.server.mock.Resetable;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.InputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.function.Consumer;

/**
 * The fabric8 mock API server in CRUD mode with Baton's CRDs installed, and a client of it: the Kubernetes API the
 * runtime watches and the operator reconciles against, without a cluster. Its store is fabric8's, indexed by name
 * ({@link IndexedCrudDispatcher}) unless there are canned answers. Closing it closes the client and stops the
 * server.
 */
public final class MockKubernetes implements AutoCloseable {

  /** Every Baton kind: RetryPolicy, WorkerService, Workflow. */
  public static final List<String> ALL_CRDS = CommittedCrds.CRD_FILES;
  /** The Workflow kind alone: what the runtime watches. */
  public static final List<String> WORKFLOW_CRD = List.of("workflows.baton.dev-v1.yml");

  /** The mock server logs every request at INFO through java.util.logging (held: JUL keeps loggers weakly). */
  private static final java.util.logging.Logger MOCK_SERVER_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  static {
    MOCK_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  /**
   * Sees every request before the mock does: to note it (which client asked for what), to answer it itself (what the
   * mock cannot serve), or to pass it on, as it is or rewritten, to {@code mock}.
   */
  @FunctionalInterface
  public interface Interceptor {
    /**
     * @param mock the mock's own dispatcher (the CRUD store, after the canned answers if there are any); requests
     *     sent to it directly are not seen again
     */
    MockResponse dispatch(RecordedRequest request, Dispatcher mock);
  }

  private final KubernetesMockServer server;
  private final KubernetesClient client;

  private MockKubernetes(KubernetesMockServer server, KubernetesClient client) {
    this.server = server;
    this.client = client;
  }

  /** A CRUD mock with the given CRD files (of {@link #ALL_CRDS}) installed. */
  public static MockKubernetes start(List<String> crdFiles) {
    return start(crdFiles, null);
  }

  /**
   * @param expectations canned answers the CRUD mock cannot give (e.g. a SelfSubjectRulesReview for leader
   *     election), set before the first request; null for a plain CRUD mock
   */
  public static MockKubernetes start(List<String> crdFiles, Consumer<KubernetesMockServer> expectations) {
    return start(crdFiles, expectations, null);
  }

  /**
   * As {@link #start(List, Consumer)}, every request going through {@code interceptor} first (null: none); the
   * CRDs' installation too.
   */
  public static MockKubernetes start(List<String> crdFiles, Consumer<KubernetesMockServer> expectations,
      Interceptor interceptor) {
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    // fabric8's mixed dispatcher makes its own (unindexed) store: canned answers cost the index.
    Dispatcher mock = expectations == null ? new IndexedCrudDispatcher() : new KubernetesMixedDispatcher(responses);
    return start(crdFiles, responses, mock, expectations, interceptor);
  }

  /** A CRUD mock on the given store (e.g. fabric8's own, to compare with), with the given CRD files installed. */
  static MockKubernetes startOn(KubernetesCrudDispatcher store, List<String> crdFiles) {
    return start(crdFiles, new HashMap<>(), store, null, null);
  }

  private static MockKubernetes start(List<String> crdFiles, Map<ServerRequest, Queue<ServerResponse>> responses,
      Dispatcher mock, Consumer<KubernetesMockServer> expectations, Interceptor interceptor) {
    KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
        interceptor == null ? mock : new Intercepted(interceptor, mock), false);
    server.init();
    KubernetesClient client = null;
    try {
      if (expectations != null) {
        expectations.accept(server);
      }
      client = server.createClient(b -> b.withKubernetesSerialization(TolerantSerialization.shared()));
      for (String file : crdFiles) {
        install(client, file);
      }
      return new MockKubernetes(server, client);
    } catch (RuntimeException e) {
      if (client != null) {
        client.close();
      }
      server.destroy();
      throw e;
    }
  }

  private static void install(KubernetesClient client, String file) {
    try (InputStream in = MockKubernetes.class.getClassLoader()
        .getResourceAsStream(CommittedCrds.CLASSPATH_DIR + file)) {
      if (in == null) {
        throw new IllegalStateException("no CRD " + file + " on the class path");
      }
      client.resource(client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class)).create();
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot install the CRD " + file + " in the mock API server", e);
    }
  }

  /**
   * The mock's dispatcher behind an {@link Interceptor}; it passes on what the server asks of the dispatcher itself
   * (custom resources to serve, a reset, shutting down).
   */
  private static final class Intercepted extends Dispatcher implements CustomResourceAware, Resetable {
    private final Interceptor interceptor;
    private final Dispatcher mock;

    Intercepted(Interceptor interceptor, Dispatcher mock) {
      this.interceptor = interceptor;
      this.mock = mock;
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      return interceptor.dispatch(request, mock);
    }

    @Override
    public void expectCustomResource(CustomResourceDefinitionContext context) {
      ((CustomResourceAware) mock).expectCustomResource(context);
    }

    @Override
    public void reset() {
      ((Resetable) mock).reset();
    }

    @Override
    public void shutdown() {
      mock.shutdown();
    }
  }

  public KubernetesMockServer server() {
    return server;
  }

  public KubernetesClient client() {
    return client;
  }

  @Override
  public void close() {
    try {
      client.close();
    } finally {
      server.destroy();
    }
  }
}
