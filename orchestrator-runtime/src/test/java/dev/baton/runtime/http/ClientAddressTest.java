package dev.baton.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The audit's source address: X-Forwarded-For only behind a trusted proxy, and only what looks like an address. */
class ClientAddressTest {

  @Test
  void theFirstHopIsTheClientAsTheTrustedProxySawIt() {
    assertThat(ClientAddress.firstHop("203.0.113.9, 10.0.0.2", "10.0.0.3")).isEqualTo("203.0.113.9");
    assertThat(ClientAddress.firstHop("2001:db8::1", "10.0.0.3")).isEqualTo("2001:db8::1");
  }

  @Test
  void withoutTheHeaderOrWithSomethingElseInItThePeerIsTheSource() {
    assertThat(ClientAddress.firstHop(null, "10.0.0.3")).isEqualTo("10.0.0.3");
    assertThat(ClientAddress.firstHop("", "10.0.0.3")).isEqualTo("10.0.0.3");
    assertThat(ClientAddress.firstHop("evil\nuser=admin", "10.0.0.3")).isEqualTo("10.0.0.3");
    assertThat(ClientAddress.firstHop("x".repeat(100), "10.0.0.3")).isEqualTo("10.0.0.3");
  }
}
