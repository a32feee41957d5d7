package dev.baton.operator.broker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PasswordHashTest {

  @Test
  void matchesOnlyTheHashedPassword() {
    BrokerUser user = new BrokerUser("u", PasswordHash.hash(PasswordHash.SHA256, "s3cret"), PasswordHash.SHA256);
    assertThat(PasswordHash.matches(user, "s3cret")).isTrue();
    assertThat(PasswordHash.matches(user, "other")).isFalse();
    BrokerUser sha512 = new BrokerUser("u", PasswordHash.hash(PasswordHash.SHA512, "s3cret"), PasswordHash.SHA512);
    assertThat(PasswordHash.matches(sha512, "s3cret")).isTrue();
  }

  @Test
  void unknownAlgorithmsAndMalformedHashesNeverMatch() {
    assertThat(PasswordHash.matches(new BrokerUser("u", "AAAA", PasswordHash.SHA256), "x")).isFalse();
    assertThat(PasswordHash.matches(new BrokerUser("u", "!!", PasswordHash.SHA256), "x")).isFalse();
    assertThat(PasswordHash.matches(new BrokerUser("u", PasswordHash.hash(PasswordHash.SHA256, "x"),
        "rabbit_password_hashing_md5"), "x")).isFalse();
  }
}
