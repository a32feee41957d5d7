package dev.baton.operator.dependent;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * What the worker pods' template carries of an imported password, so that a changed password rolls them: pods read it
 * from the Secret only when they start. Never the password, nor a fast hash of it: more people may read a pod template
 * than a Secret, and an imported password may be one a person chose. So it is PBKDF2, salted with the WorkerService
 * (equal passwords of two resources differ), and worked out once per password and resource, not on every pass.
 */
final class PasswordChecksum {

  private static final int ITERATIONS = 100_000;
  private static final int BITS = 256;
  private static final int REMEMBERED = 10_000;
  /** By salt and a digest of the password (both in memory only, as the password itself is). */
  private static final Map<String, String> CHECKSUMS = new ConcurrentHashMap<>();

  private PasswordChecksum() {}

  /**
   * @param salt what tells the resource apart (its UID): the same for its whole life, so a calm resync changes nothing
   */
  static String of(String password, String salt) {
    if (CHECKSUMS.size() > REMEMBERED) {
      CHECKSUMS.clear();
    }
    return CHECKSUMS.computeIfAbsent(salt + "\n" + sha256(password), k -> pbkdf2(password, salt));
  }

  private static String pbkdf2(String password, String salt) {
    try {
      byte[] hash = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(
          new PBEKeySpec(password.toCharArray(), salt.getBytes(StandardCharsets.UTF_8), ITERATIONS, BITS)).getEncoded();
      return "pbkdf2-sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String sha256(String password) {
    try {
      return Base64.getEncoder().encodeToString(
          MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
