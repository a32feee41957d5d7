package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.runtime.http.ApiAuth.Access;
import dev.baton.runtime.http.auth.AccessGate;
import dev.baton.runtime.http.auth.Caller;
import dev.baton.runtime.http.auth.Targets;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Kubernetes mode's sessions: the token itself in the cookie, checked again on every request. */
class KubernetesSessionsTest {

  static final String TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2ln-_";
  static final Caller CI = Caller.named("system:serviceaccount:team-a:ci");
  static final Targets NOWHERE = new Targets() {
    @Override
    public Optional<Target> workflowOf(UUID instance) {
      return Optional.empty();
    }

    @Override
    public Optional<Target> serviceOwner(String service) {
      return Optional.empty();
    }
  };
  final Map<String, Caller> valid = new java.util.HashMap<>(Map.of(TOKEN, CI));
  final KubernetesSessions sessions = new KubernetesSessions(new AccessGate(
      token -> Optional.ofNullable(valid.get(token)), (caller, request) -> false, NOWHERE));

  @Test
  void signingInWithAValidTokenKeepsTheTokenAsTheSession() {
    assertThat(sessions.signIn("  " + TOKEN + "\n")).hasValue(TOKEN);
    assertThat(sessions.who(TOKEN, null)).hasValue(new Sessions.Who(Access.FULL, CI));
  }

  @Test
  void aTokenTheClusterRefusesOrACookieCouldNotHoldDoesNotSignIn() {
    assertThat(sessions.signIn("not-valid")).isEmpty();
    valid.put("has space", CI);
    valid.put("has;semicolon", CI);
    assertThat(sessions.signIn("has space")).isEmpty();
    assertThat(sessions.signIn("has;semicolon")).isEmpty();
    assertThat(sessions.signIn("")).isEmpty();
  }

  @Test
  void aSessionEndsWhenItsTokenIsNoLongerValid() {
    valid.remove(TOKEN);
    assertThat(sessions.who(TOKEN, null)).isEmpty();
    assertThat(sessions.who(null, null)).isEmpty();
  }

  @Test
  void aBearerHeaderSpeaksForTheRequestAsTheApisDoes() {
    assertThat(sessions.who(null, "Bearer " + TOKEN)).hasValue(new Sessions.Who(Access.FULL, CI));
    assertThat(sessions.who(TOKEN, "Bearer someone-else")).as("the header, not the cookie").isEmpty();
  }
}
