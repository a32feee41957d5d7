package dev.baton.contract;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS for connections to RabbitMQ ({@code amqps://}): which certificate authorities to trust. Shared by the runtime
 * and the worker SDK so that both read {@link #CA_FILE_VARIABLE} the same way. There is no "trust everything" mode:
 * without a CA file the JVM's default trust store is used, and the broker's host name is always verified.
 */
public final class TlsTrust {

  /** PEM file with the CA certificate(s) that signed the broker's certificate (e.g. a mounted Secret's ca.crt). */
  public static final String CA_FILE_VARIABLE = "BATON_RABBITMQ_CA_FILE";

  private TlsTrust() {}

  /**
   * An SSL context trusting the certificates of {@code pemCaFile}, or the JVM's default trust store when it is null.
   *
   * @throws IllegalArgumentException when the file cannot be read or holds no certificate
   */
  public static SSLContext context(String pemCaFile) {
    try {
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      if (pemCaFile == null || pemCaFile.isBlank()) {
        tmf.init((KeyStore) null);
      } else {
        tmf.init(trustStore(Path.of(pemCaFile.trim())));
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot set up TLS with CA file " + pemCaFile + ": " + e.getMessage(), e);
    }
  }

  private static KeyStore trustStore(Path pem) throws GeneralSecurityException {
    Collection<? extends Certificate> certificates;
    try (InputStream in = Files.newInputStream(pem)) {
      certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the CA file " + pem + ": " + e.getMessage(), e);
    }
    if (certificates.isEmpty()) {
      throw new IllegalArgumentException("the CA file " + pem + " holds no PEM certificate");
    }
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    try {
      store.load(null, null);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    int i = 0;
    for (Certificate c : certificates) {
      store.setCertificateEntry("ca-" + i++, c);
    }
    return store;
  }
}
