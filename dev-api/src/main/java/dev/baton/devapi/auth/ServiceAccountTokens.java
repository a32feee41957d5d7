package dev.baton.devapi.auth;

import dev.baton.devapi.rbac.UserInfo;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * ServiceAccount tokens the dev API issues ({@code kubectl create token}) and reviews (TokenReview): random
 * opaque strings, not JWTs, remembered in memory until they expire. Only a digest of each token is kept, and no token
 * is ever logged. A token stops authenticating when it expires, or when its ServiceAccount is deleted (or deleted
 * and created again: the uid changes), as a cluster's bound tokens do.
 */
public final class ServiceAccountTokens {

  /** What a token is for when the request names no audience: the API server itself, as on a cluster. */
  public static final String API_AUDIENCE = "https://kubernetes.default.svc.cluster.local";
  /** When the request does not say (kubectl create token without --duration). */
  public static final Duration DEFAULT_LIFETIME = Duration.ofHours(1);
  /** The API server refuses shorter lifetimes. */
  public static final Duration MIN_LIFETIME = Duration.ofMinutes(10);

  /** Finds a ServiceAccount's uid in the store; empty when there is no such ServiceAccount. */
  @FunctionalInterface
  public interface ServiceAccountLookup {
    Optional<String> uid(String namespace, String name);
  }

  /** A token just issued. Its {@code toString} leaves the token out. */
  public record Issued(String token, Instant expiresAt, List<String> audiences) {
    @Override
    public String toString() {
      return "Issued[token=<hidden>, expiresAt=" + expiresAt + ", audiences=" + audiences + "]";
    }
  }

  /** The answer to a TokenReview: the user when authenticated, else why not. */
  public record Review(Optional<UserInfo> user, List<String> audiences, String error) {
    public boolean authenticated() {
      return user.isPresent();
    }

    static Review refused(String error) {
      return new Review(Optional.empty(), List.of(), error);
    }
  }

  private record Grant(String namespace, String name, String uid, Instant expiresAt, List<String> audiences) {}

  private final Map<String, Grant> byDigest = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private final Clock clock;

  public ServiceAccountTokens(Clock clock) {
    this.clock = clock;
  }

  /** A new token for a ServiceAccount (its uid as stored), for {@code audiences} (none: the API server). */
  public Issued issue(String namespace, String name, String uid, List<String> audiences, Duration lifetime) {
    forgetExpired();
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    List<String> forAudiences = audiences == null || audiences.isEmpty() ? List.of(API_AUDIENCE) : List.copyOf(audiences);
    Instant expiresAt = clock.instant().plus(lifetime).truncatedTo(ChronoUnit.SECONDS);
    byDigest.put(digest(token), new Grant(namespace, name, uid, expiresAt, forAudiences));
    return new Issued(token, expiresAt, forAudiences);
  }

  /**
   * Whether {@code token} is one this issued, still valid, for one of {@code audiences} (none: the API server), and
   * its ServiceAccount still the one it was issued for.
   */
  public Review review(String token, List<String> audiences, ServiceAccountLookup serviceAccounts) {
    Grant grant = byDigest.get(digest(token));
    if (grant == null) {
      return Review.refused("invalid bearer token: not issued by this dev API (its tokens do not survive a restart)");
    }
    if (!clock.instant().isBefore(grant.expiresAt())) {
      byDigest.remove(digest(token));
      return Review.refused("invalid bearer token: the service account token expired at " + grant.expiresAt());
    }
    List<String> wanted = audiences == null || audiences.isEmpty() ? List.of(API_AUDIENCE) : audiences;
    List<String> common = new ArrayList<>(wanted);
    common.retainAll(grant.audiences());
    if (common.isEmpty()) {
      return Review.refused("invalid bearer token: token audiences " + grant.audiences()
          + " are invalid for the target audiences " + wanted);
    }
    Optional<String> uid = serviceAccounts.uid(grant.namespace(), grant.name());
    if (uid.isEmpty()) {
      return Review.refused("invalid bearer token: service account " + grant.namespace() + "/" + grant.name()
          + " has been deleted");
    }
    if (!uid.get().equals(grant.uid())) {
      return Review.refused("invalid bearer token: service account " + grant.namespace() + "/" + grant.name()
          + " was deleted and created again (uid " + uid.get() + ", the token was issued for " + grant.uid() + ")");
    }
    return new Review(Optional.of(UserInfo.serviceAccount(grant.namespace(), grant.name(), grant.uid())), common, "");
  }

  private void forgetExpired() {
    Instant now = clock.instant();
    byDigest.values().removeIf(g -> !now.isBefore(g.expiresAt()));
  }

  /** Tokens are looked up by digest: the map never holds one a heap dump or a debugger could show. */
  private static String digest(String token) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
