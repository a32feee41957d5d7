package dev.baton.runtime.http.auth;

/** Whether a caller may do what a request asks. */
public interface Authorizer {

  /**
   * @return whether the caller may
   * @throws ReviewUnavailable when it cannot be told
   */
  boolean allows(Caller caller, AccessRequest request);
}
