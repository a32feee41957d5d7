package dev.baton.deadletters;

import com.rabbitmq.http.client.ClientParameters;
import com.rabbitmq.http.client.JdkHttpClientHttpLayer;
import dev.baton.contract.TlsTrust;
import javax.net.ssl.SSLContext;

/**
 * How the readers of dead letters (the runtime's web UI, {@code baton dlq}) reach the RabbitMQ management API: as a
 * user, and over https trusting the broker's CA when a PEM file of it is given ({@code BATON_RABBITMQ_CA_FILE}, read
 * by {@link TlsTrust} as the runtime's and the workers' amqps:// connections read it); without one, the JVM's trust
 * store. The host name is always verified.
 */
public final class ManagementApi {

  private ManagementApi() {}

  /**
   * Hop's parameters for {@code url}.
   *
   * @param caFile PEM file of the CA that signed the management API's certificate, or null or blank for none
   * @throws IllegalArgumentException when the CA file cannot be read or holds no certificate (TlsTrust says which)
   * @throws java.net.MalformedURLException when the URL is not one
   */
  public static ClientParameters parameters(String url, String username, String password, String caFile)
      throws java.net.MalformedURLException {
    ClientParameters parameters = new ClientParameters().url(url).username(username).password(password);
    if (caFile != null && !caFile.isBlank()) {
      SSLContext tls = TlsTrust.context(caFile);
      parameters.httpLayerFactory(JdkHttpClientHttpLayer.configure().clientBuilderConsumer(b -> b.sslContext(tls))
          .create());
    }
    return parameters;
  }
}
