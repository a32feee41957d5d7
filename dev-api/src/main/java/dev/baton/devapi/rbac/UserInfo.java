package dev.baton.devapi.rbac;

import java.util.List;
import java.util.Optional;

/**
 * Who asks: a user name, its uid and its groups, as a TokenReview answers them and a SubjectAccessReview asks about
 * them.
 */
public record UserInfo(String name, String uid, List<String> groups) {

  public static final String AUTHENTICATED = "system:authenticated";
  public static final String ALL_SERVICE_ACCOUNTS = "system:serviceaccounts";
  private static final String SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

  /**
   * The dev API's admin: whoever calls it, since its kubeconfig (user {@code baton-dev}) carries no credentials and
   * it checks none. In group {@code system:masters}, like a cluster's admin.
   */
  public static final UserInfo ADMIN = new UserInfo("baton-dev", "", List.of(RbacAuthorizer.MASTERS, AUTHENTICATED));

  public UserInfo {
    name = name == null ? "" : name;
    uid = uid == null ? "" : uid;
    groups = groups == null ? List.of() : List.copyOf(groups);
  }

  /** A ServiceAccount as the API server authenticates its tokens: its user name and its three groups. */
  public static UserInfo serviceAccount(String namespace, String name, String uid) {
    return new UserInfo(serviceAccountUsername(namespace, name), uid,
        List.of(ALL_SERVICE_ACCOUNTS, namespaceGroup(namespace), AUTHENTICATED));
  }

  /** {@code system:serviceaccount:<namespace>:<name>} */
  public static String serviceAccountUsername(String namespace, String name) {
    return SERVICE_ACCOUNT_PREFIX + namespace + ":" + name;
  }

  /** {@code system:serviceaccounts:<namespace>} */
  public static String namespaceGroup(String namespace) {
    return ALL_SERVICE_ACCOUNTS + ":" + namespace;
  }

  /** The namespace of a ServiceAccount's user name, empty for other users. */
  public static Optional<String> serviceAccountNamespace(String username) {
    if (username == null || !username.startsWith(SERVICE_ACCOUNT_PREFIX)) {
      return Optional.empty();
    }
    String[] parts = username.substring(SERVICE_ACCOUNT_PREFIX.length()).split(":");
    return parts.length == 2 && !parts[0].isEmpty() && !parts[1].isEmpty() ? Optional.of(parts[0]) : Optional.empty();
  }
}
