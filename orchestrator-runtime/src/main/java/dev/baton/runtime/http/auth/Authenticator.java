package dev.baton.runtime.http.auth;

import java.util.Optional;

/** Who a bearer token belongs to. */
public interface Authenticator {

  /**
   * @return the caller, or empty when the token is not valid (unknown, expired, revoked)
   * @throws ReviewUnavailable when it cannot be told
   */
  Optional<Caller> authenticate(String token);
}
