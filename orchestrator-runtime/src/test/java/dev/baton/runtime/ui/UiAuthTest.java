package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.runtime.http.ApiAuth.Access;
import dev.baton.runtime.http.ApiAuth;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Sessions signed with the token, the read-only level, expiry, and the CSRF check. */
class UiAuthTest {

  static final Clock NOW = Clock.fixed(Instant.parse("2026-01-05T10:00:00Z"), ZoneOffset.UTC);
  static final ApiAuth TOKENS = new ApiAuth("full-token-123", "read-token-456");

  @Test
  void aSessionCarriesItsAccessAndNotTheToken() {
    UiAuth auth = new UiAuth(TOKENS, NOW);
    assertThat(auth.signIn("full-token-123")).contains(Access.FULL);
    assertThat(auth.signIn(" read-token-456 ")).contains(Access.READ);
    assertThat(auth.signIn("wrong")).isEmpty();
    String full = auth.session(Access.FULL);
    assertThat(full).doesNotContain("full-token-123");
    assertThat(auth.access(full, null)).contains(Access.FULL);
    assertThat(auth.access(auth.session(Access.READ), null)).contains(Access.READ);
    assertThat(auth.access(null, "Bearer full-token-123")).contains(Access.FULL);
    assertThat(auth.access(null, null)).isEmpty();
  }

  @Test
  void aForgedEditedExpiredOrOtherTokensSessionIsRefused() {
    UiAuth auth = new UiAuth(TOKENS, NOW);
    String read = auth.session(Access.READ);
    assertThat(auth.verify(read.replace(".READ.", ".FULL."))).isEmpty(); // promoting itself breaks the signature
    assertThat(auth.verify("v1.FULL.9999999999.AAAA")).isEmpty();
    assertThat(auth.verify("garbage")).isEmpty();
    UiAuth later = new UiAuth(TOKENS, Clock.offset(NOW, UiAuth.SESSION_LENGTH.plusSeconds(1)));
    assertThat(later.verify(read)).isEmpty();
    UiAuth rotated = new UiAuth(new ApiAuth("another-token", null), NOW);
    assertThat(rotated.verify(auth.session(Access.FULL))).isEmpty();
    assertThat(rotated.verify(read)).isEmpty();
  }

  @Test
  void anOpenApiNeedsNoSignIn() {
    UiAuth auth = new UiAuth(ApiAuth.OPEN, NOW);
    assertThat(auth.required()).isFalse();
    assertThat(auth.access(null, null)).contains(Access.FULL);
  }

  @Test
  void aPostMustCarryTheCookiesTokenAndComeFromThisHost() {
    String t = UiAuth.newCsrfToken();
    assertThat(UiAuth.sameOrigin(t, t, null, "127.0.0.1:8080")).isTrue();
    assertThat(UiAuth.sameOrigin(t, t, "http://127.0.0.1:8080", "127.0.0.1:8080")).isTrue();
    assertThat(UiAuth.sameOrigin(t, t, "http://evil.example", "127.0.0.1:8080")).isFalse();
    assertThat(UiAuth.sameOrigin(t, UiAuth.newCsrfToken(), null, "127.0.0.1:8080")).isFalse();
    assertThat(UiAuth.sameOrigin(t, null, null, "127.0.0.1:8080")).isFalse();
    assertThat(UiAuth.sameOrigin(null, null, null, "127.0.0.1:8080")).isFalse();
  }

  @Test
  void signInLinksOnlyLeadIntoTheUi() {
    assertThat(WebUi.safeNext("/ui/instances/x")).isEqualTo("/ui/instances/x");
    for (String bad : new String[] {null, "https://evil.example/", "//evil.example/ui/", "/api/v1/counts",
        "/ui/\\evil"}) {
      assertThat(WebUi.safeNext(bad)).isEqualTo("/ui/");
    }
  }
}
