package dev.baton.operator.topology;

import dev.baton.contract.topology.PermissionSpec;
import dev.baton.operator.broker.BrokerClient;
import dev.baton.operator.broker.BrokerUser;
import dev.baton.operator.broker.PasswordHash;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A worker service's broker user (DESIGN.md §6): exists, has the password of its Secret, and exactly the planned
 * permissions. The password is compared with the broker's salted hash, so a resync that finds everything in place
 * changes nothing (and never logs or sends the password).
 */
public final class WorkerUserSync {

  private final BrokerClient broker;

  public WorkerUserSync(BrokerClient broker) {
    this.broker = broker;
  }

  /** @return what was changed, for the log */
  public List<String> ensure(String username, String password, PermissionSpec permissions) {
    List<String> actions = new ArrayList<>();
    Optional<BrokerUser> user = broker.user(username);
    if (user.isEmpty()) {
      broker.putUser(username, password);
      actions.add("created user " + username);
    } else if (!PasswordHash.matches(user.get(), password)) {
      broker.putUser(username, password);
      actions.add("set the password of user " + username + " to the one in its Secret");
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
