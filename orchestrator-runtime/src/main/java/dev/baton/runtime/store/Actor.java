package dev.baton.runtime.store;

import java.util.Objects;

/**
 * Who asked for an action on instances, as the audit records it: the user the request was authenticated as (the user
 * name of a Kubernetes TokenReview, {@code static-token} or {@code static-read-token} with the runtime's own tokens,
 * {@code anonymous} on an open API) and the address the request came from. Never a token: nothing here is a secret.
 *
 * @param source the client's address, or null when it is not known
 */
public record Actor(String user, String source) {

  public Actor {
    Objects.requireNonNull(user, "user");
  }
}
