package dev.baton.runtime.core;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.UUID;

/**
 * Random (version 4) UUIDs for instance and message ids, as unguessable as {@link UUID#randomUUID()} but without its
 * cost on the hot path: that one reads the operating system's generator through one lock shared by every thread;
 * here each thread has its own cryptographically strong generator (DRBG, initialised once from the system's entropy).
 */
public final class RandomIds {

  private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(RandomIds::generator);

  private RandomIds() {}

  public static UUID next() {
    byte[] b = new byte[16];
    RANDOM.get().nextBytes(b);
    b[6] = (byte) ((b[6] & 0x0f) | 0x40); // version 4
    b[8] = (byte) ((b[8] & 0x3f) | 0x80); // IETF variant
    long msb = 0;
    long lsb = 0;
    for (int i = 0; i < 8; i++) {
      msb = (msb << 8) | (b[i] & 0xff);
      lsb = (lsb << 8) | (b[i + 8] & 0xff);
    }
    return new UUID(msb, lsb);
  }

  private static SecureRandom generator() {
    try {
      return SecureRandom.getInstance("DRBG");
    } catch (NoSuchAlgorithmException e) {
      return new SecureRandom();
    }
  }
}
