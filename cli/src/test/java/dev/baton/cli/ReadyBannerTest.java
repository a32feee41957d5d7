package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code baton dev} prints once everything is up: the one READY line names every address a user opens. */
class ReadyBannerTest {

  @TempDir
  Path cwd;

  private String banner(String runtime) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      ReadyBanner.print(out, "https://127.0.0.1:6443", runtime, cwd.resolve("kubeconfig"), cwd);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void theReadyLineNamesTheWebUiAddress() {
    String text = banner("http://127.0.0.1:8080");
    String ready = text.lines().filter(l -> l.startsWith(ReadyBanner.READY + ":")).findFirst().orElseThrow();
    assertThat(ready).contains("Kubernetes API https://127.0.0.1:6443").contains("runtime http://127.0.0.1:8080")
        .contains("web UI http://127.0.0.1:8080/ui/ ");
    assertThat(text).contains("export KUBECONFIG=" + cwd.resolve("kubeconfig"))
        .contains("bin/baton get order-fulfilment        #"); // the default runtime: no --runtime-url to type
  }

  @Test
  void theWebUiAddressFollowsTheRuntimesPort() {
    String text = banner("http://127.0.0.1:18080");
    assertThat(text).contains("web UI http://127.0.0.1:18080/ui/ ").doesNotContain(":8080/")
        .contains("--runtime-url http://127.0.0.1:18080");
  }
}
