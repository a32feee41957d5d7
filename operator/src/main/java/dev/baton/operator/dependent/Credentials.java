package dev.baton.operator.dependent;

import io.fabric8.kubernetes.api.model.Secret;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The credentials Secret's content (keys {@code username}, {@code password}, {@code uri}). Never logged. */
public final class Credentials {

  public static final String USERNAME = "username";
  public static final String PASSWORD = "password";
  public static final String URI = "uri";
  /** The broker's CA certificate (PEM), when the operator is given one: workers mount it for TLS. */
  public static final String CA = "ca.crt";

  private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  private static final int PASSWORD_LENGTH = 32;
  private static final SecureRandom RANDOM = new SecureRandom();

  private Credentials() {}

  /** 32 letters and digits (≈190 bits): safe in a URI without escaping. */
  public static String newPassword() {
    StringBuilder sb = new StringBuilder(PASSWORD_LENGTH);
    for (int i = 0; i < PASSWORD_LENGTH; i++) {
      sb.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return sb.toString();
  }

  /** {@code amqp://user:password@host:port/<url-encoded vhost>}. */
  public static String uri(String username, String password, String host, int port, String vhost) {
    return uri(username, password, host, port, vhost, false);
  }

  /** As {@link #uri(String, String, String, int, String)}; with {@code tls} the scheme is {@code amqps}. */
  public static String uri(String username, String password, String host, int port, String vhost, boolean tls) {
    return (tls ? "amqps://" : "amqp://") + encode(username) + ":" + encode(password) + "@" + host + ":" + port + "/"
        + encode(vhost);
  }

  /** The password a Secret holds, if it holds a usable one. */
  public static Optional<String> password(Secret secret) {
    return value(secret, PASSWORD).filter(p -> !p.isBlank());
  }

  static Map<String, String> data(WorkerPlan plan, String password) {
    Map<String, String> data = data(plan.username(), password,
        uri(plan.username(), password, plan.amqpHost(), plan.amqpPort(), plan.vhost(), plan.tls()));
    if (plan.caPem() != null) {
      data.put(CA, base64(plan.caPem()));
    }
    return data;
  }

  /** A credentials Secret's {@code data}: username, password and URI, base64-encoded. */
  public static Map<String, String> data(String username, String password, String uri) {
    Map<String, String> data = new LinkedHashMap<>();
    data.put(USERNAME, base64(username));
    data.put(PASSWORD, base64(password));
    data.put(URI, base64(uri));
    return data;
  }

  /** A Secret's value under {@code key}, decoded, if it has one. */
  public static Optional<String> value(Secret secret, String key) {
    if (secret.getData() != null && secret.getData().get(key) != null) {
      try {
        return Optional.of(new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
    return Optional.ofNullable(secret.getStringData() == null ? null : secret.getStringData().get(key));
  }

  public static String base64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  /** URL-encoding for user names, passwords and vhosts in URIs ({@code /} becomes {@code %2F}). */
  public static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

}
