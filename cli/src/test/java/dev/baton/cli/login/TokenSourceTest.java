package dev.baton.cli.login;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenSourceTest {

  static final String RUNTIME = "http://127.0.0.1:8080";

  @TempDir Path dir;

  SavedLogins saved() {
    return SavedLogins.under(dir.resolve("config").toString());
  }

  Path kubeconfig(String userBlock) throws Exception {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(file, """
        apiVersion: v1
        kind: Config
        clusters:
        - name: prod
          cluster: {server: "https://k8s.example:6443"}
        users:
        - name: ci
          user: %s
        contexts:
        - name: prod
          context: {cluster: prod, user: ci, namespace: team-a}
        current-context: prod
        """.formatted(userBlock));
    return file;
  }

  @Test
  void anExplicitTokenWinsOverASavedLoginAndTheKubeconfig() throws Exception {
    saved().save(RUNTIME, "saved-token");
    TokenSource tokens = TokenSource.of(saved(), kubeconfig("{token: kube-token}"));

    assertThat(tokens.find(" explicit-token ", RUNTIME)).hasValueSatisfying(t -> {
      assertThat(t.value()).isEqualTo("explicit-token");
      assertThat(t.from()).contains("--token");
    });
  }

  @Test
  void aSavedLoginForThisRuntimeWinsOverTheKubeconfig() throws Exception {
    saved().save(RUNTIME + "/", "saved-token");
    TokenSource tokens = TokenSource.of(saved(), kubeconfig("{token: kube-token}"));

    assertThat(tokens.find(null, RUNTIME)).map(TokenSource.Token::value).hasValue("saved-token");
    assertThat(tokens.find(null, "http://other:8080")).map(TokenSource.Token::value).hasValue("kube-token");
  }

  @Test
  void theKubeconfigsCurrentContextGivesItsTokenOrItsTokenFile() throws Exception {
    Path tokenFile = dir.resolve("token");
    Files.writeString(tokenFile, "file-token\n");

    assertThat(TokenSource.of(saved(), kubeconfig("{token: kube-token}")).find(null, RUNTIME))
        .hasValueSatisfying(t -> {
          assertThat(t.value()).isEqualTo("kube-token");
          assertThat(t.from()).isEqualTo("kubectl's current context 'prod'");
        });
    assertThat(TokenSource.of(saved(), kubeconfig("{tokenFile: " + tokenFile + "}")).find(null, RUNTIME))
        .map(TokenSource.Token::value).hasValue("file-token");
  }

  @Test
  void withoutAnyThereIsNoToken() throws Exception {
    assertThat(TokenSource.of(saved(), dir.resolve("missing")).find(null, RUNTIME)).isEmpty();
    assertThat(TokenSource.of(saved(), kubeconfig("{}")).find("  ", RUNTIME)).isEmpty();
  }

  @Test
  void aTokenNeverShowsInItsTextForm() {
    assertThat(new TokenSource.Token("s3cr3t", "baton login").toString()).doesNotContain("s3cr3t");
  }

  @Test
  void savedLoginsAreReadableByTheirOwnerOnlyAndCanBeForgotten() throws Exception {
    SavedLogins logins = saved();
    logins.save(RUNTIME, "saved-token");

    assertThat(Files.getPosixFilePermissions(logins.file())).containsExactlyInAnyOrder(
        PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    assertThat(logins.forget(RUNTIME)).isTrue();
    assertThat(logins.forget(RUNTIME)).isFalse();
    assertThat(logins.token(RUNTIME)).isEqualTo(Optional.empty());
  }
}
