package dev.baton.operator.dependent;

import dev.baton.contract.TlsTrust;
import dev.baton.operator.OperatorSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The broker's CA certificate the operator hands to workers (their Secret's {@code ca.crt}), read once at start. */
public final class BrokerCa {

  private BrokerCa() {}

  /**
   * @return the PEM text of {@link OperatorSettings#caFile()}, or null when none is configured
   * @throws IllegalArgumentException naming the variable when the file cannot be read or holds no certificate
   */
  public static String read(OperatorSettings settings) {
    if (settings.caFile() == null) {
      return null;
    }
    try {
      String pem = Files.readString(Path.of(settings.caFile()), StandardCharsets.US_ASCII);
      if (!pem.contains("-----BEGIN CERTIFICATE-----")) {
        throw new IllegalArgumentException(TlsTrust.CA_FILE_VARIABLE + ": " + settings.caFile()
            + " holds no PEM certificate");
      }
      return pem;
    } catch (IOException e) {
      throw new IllegalArgumentException(TlsTrust.CA_FILE_VARIABLE + ": cannot read " + settings.caFile() + " ("
          + e.getMessage() + ")", e);
    }
  }
}
