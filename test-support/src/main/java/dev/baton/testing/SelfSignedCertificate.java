package dev.baton.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A throw-away self-signed certificate for 127.0.0.1, made with the JDK's keytool, for a test's own TLS server: the
 * server presents it ({@link #serverContext()}), and its PEM ({@link #caPem()}) is the CA file a client is told to
 * trust. Nothing else trusts it, the JVM's trust store included.
 */
public final class SelfSignedCertificate {

  private static final String PASSWORD = "changeit";

  private final Path keystore;
  private final Path caPem;

  private SelfSignedCertificate(Path keystore, Path caPem) {
    this.keystore = keystore;
    this.caPem = caPem;
  }

  /** Makes the key pair and the certificate in {@code dir} (a test's temporary directory). */
  public static SelfSignedCertificate create(Path dir) throws IOException, InterruptedException {
    Path keystore = dir.resolve("server.p12");
    Path caPem = dir.resolve("ca.pem");
    keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
        "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
        "-storepass", PASSWORD, "-keypass", PASSWORD);
    keytool("-exportcert", "-rfc", "-alias", "server", "-keystore", keystore.toString(), "-storepass", PASSWORD,
        "-file", caPem.toString());
    return new SelfSignedCertificate(keystore, caPem);
  }

  /** The certificate as PEM: the CA file that makes a client trust the server. */
  public Path caPem() {
    return caPem;
  }

  /** A server's TLS context presenting the certificate. */
  public SSLContext serverContext() throws IOException, GeneralSecurityException {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      ks.load(in, PASSWORD.toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, PASSWORD.toCharArray());
    SSLContext server = SSLContext.getInstance("TLS");
    server.init(kmf.getKeyManagers(), null, null);
    return server;
  }

  private static void keytool(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("keytool " + args[0] + " failed: " + out);
    }
  }
}
