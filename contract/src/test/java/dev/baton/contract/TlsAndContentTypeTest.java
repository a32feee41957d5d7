package dev.baton.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The content types a JSON message may declare, and the CA file of amqps connections. */
class TlsAndContentTypeTest {

  @ParameterizedTest
  @CsvSource(nullValues = "NULL", value = {
      "NULL, true", "'', true", "application/json, true", "application/json; charset=utf-8, true",
      "APPLICATION/JSON, true", "application/vnd.baton+json, true", "text/plain, false", "application/xml, false",
      "application/octet-stream, false", "text/json, false", "json, false"})
  void jsonContentTypes(String contentType, boolean json) {
    assertThat(Headers.isJsonContentType(contentType)).isEqualTo(json);
  }

  @Test
  void theDefaultTrustStoreOrACaFile(@TempDir Path dir) throws Exception {
    assertThat(TlsTrust.context(null).getProtocol()).isEqualTo("TLS");
    assertThatThrownBy(() -> TlsTrust.context(dir.resolve("missing.crt").toString()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot read the CA file");
    Path empty = Files.writeString(dir.resolve("empty.crt"), "no certificate here\n");
    assertThatThrownBy(() -> TlsTrust.context(empty.toString())).isInstanceOf(IllegalArgumentException.class);
  }
}
