package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.client.TolerantSerialization;
import dev.baton.api.crd.CommittedCrds;
import dev.baton.devapi.cel.RuleBudget;
import dev.baton.devapi.rbac.DefaultClusterRoles;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.vertx.HttpServerRequestHandler;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kubernetes-compatible API for local development: the fabric8 mock server's CRUD store behind enough of the real
 * API (discovery, OpenAPI v3, tables, schema validation, HTTP watches) that the real kubectl can apply, get,
 * describe, wait for and delete Baton resources and the core objects the operator creates. The Baton CRDs are
 * applied, namespace {@code default} exists and the ClusterRoles {@code cluster-admin}, {@code admin},
 * {@code edit} and {@code view} exist when {@link #start} returns.
 *
 * <p>It also serves ServiceAccount tokens ({@code kubectl create token}), TokenReview for the tokens it issued and
 * SubjectAccessReview decided by RBAC over the stored roles and bindings, always: a runtime started with
 * {@code BATON_AUTH=kubernetes} against this API needs nothing else ({@link AuthEndpoints}).
 *
 * <p>A development aid, not a cluster: no scheduler, no kubelet, no garbage collection of owned objects, no
 * server-side apply. On a real cluster the operator runs with server-side apply on.
 */
public final class DevApiServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DevApiServer.class);

  private final Vertx vertx;
  private final HttpServer server;
  private final String url;
  private final KubernetesClient client;
  private final WatchHub hub;

  private DevApiServer(Vertx vertx, HttpServer server, String url, WatchHub hub) {
    this.hub = hub;
    this.vertx = vertx;
    this.server = server;
    this.url = url;
    this.client = TolerantSerialization.clientBuilder().withConfig(clientConfig(url)).build();
  }

  /**
   * Listens on {@code host:port} (port 0 picks a free one), applies the Baton CRDs and creates namespace default.
   *
   * @throws PortInUseException when the port is taken
   */
  public static DevApiServer start(String host, int port) {
    WatchHub hub = new WatchHub();
    DevApiDispatcher dispatcher = new DevApiDispatcher(hub, Clock.systemUTC());
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(2));
    HttpWatch httpWatch = new HttpWatch(vertx, dispatcher, hub);
    HttpServerRequestHandler crud = new HttpServerRequestHandler(vertx) {
      @Override
      protected MockResponse onHttpRequest(RecordedRequest request) {
        return dispatcher.dispatch(request);
      }
    };
    HttpServer server = vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port)
        .setHandle100ContinueAutomatically(true)
        .setWebSocketSubProtocols(List.of("v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io",
            "v1.channel.k8s.io")));
    server.requestHandler(request -> {
      if (HttpWatch.isHttpWatch(request)) {
        httpWatch.serve(request);
      } else {
        crud.handle(request);
      }
    });
    try {
      server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      vertx.close();
      if (e.getCause() instanceof BindException) {
        throw new PortInUseException(host, port, e.getCause());
      }
      throw new IllegalStateException("the dev API cannot listen on " + host + ":" + port + ": " + e.getCause(), e);
    } catch (InterruptedException | TimeoutException e) {
      vertx.close();
      throw new IllegalStateException("the dev API did not start listening on " + host + ":" + port, e);
    }
    DevApiServer dev = new DevApiServer(vertx, server, "http://" + host + ":" + server.actualPort(), hub);
    dev.bootstrap();
    LOG.info("dev API listening on {}", dev.url);
    return dev;
  }

  /** HTTP watches open right now (kubectl get -w, kubectl wait): lets tests wait until kubectl listens. */
  public int openHttpWatches() {
    return hub.subscriptionCount();
  }

  private void bootstrap() {
    for (String file : CommittedCrds.CRD_FILES) {
      JsonNode crd = CommittedCrds.read(file);
      // Compiles and costs the CRD's CEL rules here, once, rather than inside the request that creates the CRD
      // (seconds on a loaded machine: the client's request timed out).
      RuleBudget.check(crd);
      client.apiextensions().v1().customResourceDefinitions()
          .resource(Serialization.unmarshal(crd.toString(), CustomResourceDefinition.class)).createOr(c -> c.update());
    }
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("default").endMetadata()
        .withNewStatus().withPhase("Active").endStatus().build()).createOr(c -> c.update());
    for (ClusterRole role : DefaultClusterRoles.all()) {
      client.rbac().clusterRoles().resource(role).createOr(c -> c.update());
    }
  }

  /** {@code http://host:port} */
  public String url() {
    return url;
  }

  public int port() {
    return server.actualPort();
  }

  /** A client for this API (namespace default). Owned by the server: closed by {@link #close()}. */
  public KubernetesClient client() {
    return client;
  }

  /** A fresh client configuration for this API, for components that want their own client. */
  public Config clientConfig() {
    return clientConfig(url);
  }

  /** Writes a kubeconfig for kubectl, creating parent directories. */
  public Path writeKubeconfig(Path file) {
    try {
      if (file.getParent() != null) {
        Files.createDirectories(file.getParent());
      }
      Files.writeString(file, Kubeconfig.forServer(url));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the kubeconfig " + file, e);
    }
  }

  @Override
  public void close() {
    client.close();
    try {
      server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.debug("dev API did not close cleanly", e);
    }
  }

  private static Config clientConfig(String url) {
    return new ConfigBuilder(Config.empty()).withMasterUrl(url).withNamespace("default").withTrustCerts(true)
        .withRequestRetryBackoffLimit(0).build();
  }
}
