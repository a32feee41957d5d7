package dev.baton.reliability.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A throw-away certificate authority made with openssl: its certificate ({@code ca.crt}) and one server certificate
 * for {@code localhost} and {@code 127.0.0.1} ({@code server.crt}, {@code server.key}), plus a second, unrelated CA
 * ({@code other-ca.crt}) to show that a client trusting the wrong CA is refused.
 */
public final class TestCa {

  private final Path dir;

  private TestCa(Path dir) {
    this.dir = dir;
  }

  public static TestCa create(Path dir) {
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("server.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
          + "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    String d = dir.toString();
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", d + "/ca.key", "-out", d + "/ca.crt",
        "-days", "3", "-subj", "/CN=Baton reliability test CA");
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", d + "/other-ca.key", "-out",
        d + "/other-ca.crt", "-days", "3", "-subj", "/CN=Some other CA");
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", d + "/server.key", "-out", d + "/server.csr",
        "-subj", "/CN=localhost");
    openssl("x509", "-req", "-in", d + "/server.csr", "-CA", d + "/ca.crt", "-CAkey", d + "/ca.key",
        "-CAcreateserial", "-out", d + "/server.crt", "-days", "3", "-extfile", d + "/server.ext");
    return new TestCa(dir);
  }

  private static void openssl(String... args) {
    List<String> cmd = new java.util.ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Cmd.run(cmd, Map.of(), 60);
  }

  public Path caCert() {
    return dir.resolve("ca.crt");
  }

  public Path otherCaCert() {
    return dir.resolve("other-ca.crt");
  }

  public Path serverCert() {
    return dir.resolve("server.crt");
  }

  public Path serverKey() {
    return dir.resolve("server.key");
  }
}
