package dev.baton.runtime.http.auth;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Who a request comes from, as far as the runtime knows: a Kubernetes user as a TokenReview described it (its name,
 * uid, groups and extra, all of which a SubjectAccessReview is asked about), or one of the fixed names of token mode.
 * Never the token itself.
 */
public record Caller(String user, String uid, List<String> groups, Map<String, List<String>> extra) {

  /** Anyone, on an open API (token mode without tokens). */
  public static final Caller ANONYMOUS = named("anonymous");
  /** Whoever holds {@code BATON_API_TOKEN}. */
  public static final Caller STATIC_TOKEN = named("static-token");
  /** Whoever holds {@code BATON_API_READ_TOKEN}. */
  public static final Caller STATIC_READ_TOKEN = named("static-read-token");

  public Caller {
    Objects.requireNonNull(user, "user");
    groups = groups == null ? List.of() : List.copyOf(groups);
    extra = extra == null ? Map.of() : extra.entrySet().stream()
        .collect(java.util.stream.Collectors.toUnmodifiableMap(Map.Entry::getKey, e -> List.copyOf(e.getValue())));
  }

  /** A caller known by name only. */
  public static Caller named(String user) {
    return new Caller(user, null, List.of(), Map.of());
  }
}
