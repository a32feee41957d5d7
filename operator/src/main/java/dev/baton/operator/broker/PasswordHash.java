package dev.baton.operator.broker;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

/**
 * RabbitMQ's salted password hashes: base64 of a 4-byte salt followed by digest(salt ‖ password). Lets the operator
 * check that a broker user's password still follows its Secret without resetting it on every resync.
 */
public final class PasswordHash {

  public static final String SHA256 = "rabbit_password_hashing_sha256";
  public static final String SHA512 = "rabbit_password_hashing_sha512";
  private static final int SALT_LENGTH = 4;
  private static final SecureRandom RANDOM = new SecureRandom();

  private PasswordHash() {}

  /** Whether the user's stored hash is that of {@code password}; false for unknown algorithms or malformed hashes. */
  public static boolean matches(BrokerUser user, String password) {
    String digest = digestName(user.hashingAlgorithm());
    if (digest == null || user.passwordHash() == null || password == null) {
      return false;
    }
    byte[] stored;
    try {
      stored = Base64.getDecoder().decode(user.passwordHash());
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (stored.length <= SALT_LENGTH) {
      return false;
    }
    byte[] salt = Arrays.copyOf(stored, SALT_LENGTH);
    return MessageDigest.isEqual(stored, salted(digest, salt, password));
  }

  /**
   * An unsalted SHA-256 of a password, to tell whether a password changed without keeping it; never sent or logged.
   */
  public static String digest(String password) {
    try {
      return Base64.getEncoder().encodeToString(
          MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A hash as the broker would store it (what the operator records after setting a password, and fakes in tests). */
  public static String hash(String algorithm, String password) {
    byte[] salt = new byte[SALT_LENGTH];
    RANDOM.nextBytes(salt);
    return Base64.getEncoder().encodeToString(salted(digestName(algorithm), salt, password));
  }

  private static byte[] salted(String digest, byte[] salt, String password) {
    try {
      MessageDigest md = MessageDigest.getInstance(digest);
      md.update(salt);
      md.update(password.getBytes(StandardCharsets.UTF_8));
      byte[] hash = md.digest();
      byte[] out = Arrays.copyOf(salt, SALT_LENGTH + hash.length);
      System.arraycopy(hash, 0, out, SALT_LENGTH, hash.length);
      return out;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String digestName(String algorithm) {
    if (SHA256.equals(algorithm)) {
      return "SHA-256";
    }
    if (SHA512.equals(algorithm)) {
      return "SHA-512";
    }
    return null;
  }
}
