package dev.baton.operator.topology;

import dev.baton.contract.topology.PermissionSpec;
import dev.baton.operator.broker.BrokerSnapshot;
import dev.baton.operator.broker.BrokerUser;
import dev.baton.operator.broker.PasswordHash;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A broker user the operator keeps (docs/design.md#security: a worker service's, the orchestrator runtime's, an autoscaler's):
 * exists, has the password of its Secret, its tags, and exactly the planned permissions. The password is compared
 * with the broker's salted hash, so a resync that finds everything in place changes nothing (and never logs or sends
 * the password). User and permissions are read from the shared {@link BrokerSnapshot}: a resync sends no request.
 */
public final class WorkerUserSync {

  private final BrokerSnapshot broker;

  public WorkerUserSync(BrokerSnapshot broker) {
    this.broker = broker;
  }

  /** @return what was changed, for the log */
  public List<String> ensure(String username, String password, PermissionSpec permissions) {
    return ensure(username, password, List.of(), permissions);
  }

  /**
   * As {@link #ensure(String, String, PermissionSpec)}, for a user that also needs tags (the autoscaler's read-only
   * user needs {@code management} to read queue statistics over HTTP).
   *
   * @return what was changed, for the log
   */
  public List<String> ensure(String username, String password, List<String> tags, PermissionSpec permissions) {
    broker.refreshIfStale();
    List<String> actions = new ArrayList<>();
    Optional<BrokerUser> user = broker.user(username);
    if (user.isEmpty()) {
      broker.putUser(username, password, tags);
      actions.add("created user " + username);
    } else if (!PasswordHash.matches(user.get(), password)) {
      broker.putUser(username, password, tags);
      actions.add("set the password of user " + username + " to the one in its Secret");
    } else if (!Set.copyOf(user.get().tags()).equals(Set.copyOf(tags))) {
      broker.putUser(username, password, tags);
      actions.add("set the tags of user " + username + " to " + tags);
    }
    if (!broker.permissions(username).equals(Optional.of(permissions))) {
      broker.putPermissions(username, permissions);
      actions.add("set the permissions of user " + username + " in vhost " + broker.vhost());
    }
    return actions;
  }

  public void remove(String username) {
    broker.deleteUser(username);
  }
}
