package dev.baton.testing;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local https server with a throw-away certificate ({@link SelfSignedCertificate}) that answers every GET under one
 * path with the same JSON: a stand-in for RabbitMQ's management API behind a private CA, for the tests of the clients
 * that read it (the CLI's {@code dlq list}, the runtime's dead-letter page). Nothing trusts it unless told its CA.
 */
public final class HttpsJsonStub implements AutoCloseable {

  private final SelfSignedCertificate certificate;
  private final HttpsServer server;
  private final AtomicInteger reads = new AtomicInteger();

  private HttpsJsonStub(SelfSignedCertificate certificate, HttpsServer server) {
    this.certificate = certificate;
    this.server = server;
  }

  /**
   * Starts one on a free port.
   *
   * @param dir where its key and certificate are made (a test's temporary directory)
   * @param path what it answers under, e.g. {@code /api/queues/}
   * @param json its answer
   */
  public static HttpsJsonStub serving(Path dir, String path, String json)
      throws IOException, InterruptedException, GeneralSecurityException {
    SelfSignedCertificate certificate = SelfSignedCertificate.create(dir);
    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(certificate.serverContext()));
    HttpsJsonStub stub = new HttpsJsonStub(certificate, server);
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    server.createContext(path, exchange -> {
      stub.reads.incrementAndGet();
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    return stub;
  }

  /** Its base URL for a management API client: {@code https://127.0.0.1:<port>/api/}. */
  public String managementUrl() {
    return "https://127.0.0.1:" + server.getAddress().getPort() + "/api/";
  }

  /** The PEM file of its certificate: the CA file a client is told to trust. */
  public Path caPem() {
    return certificate.caPem();
  }

  /** How many requests it has answered. */
  public int reads() {
    return reads.get();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
