package dev.baton.operator.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.contract.topology.PermissionSpec;
import dev.baton.operator.broker.FakeBrokerClient;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkerUserSyncTest {

  final FakeBrokerClient broker = new FakeBrokerClient();
  final WorkerUserSync users = new WorkerUserSync(broker.snapshot());
  final PermissionSpec permissions = new PermissionSpec("^$", "^w$", "^r$");

  @Test
  void createsTheUserAndThenLeavesItAlone() {
    assertThat(users.ensure("baton-payment", "secret-1", permissions)).hasSize(2);
    assertThat(broker.passwords).containsEntry("baton-payment", "secret-1");
    assertThat(broker.permissions).containsEntry("baton-payment", permissions);

    broker.writes.clear();
    assertThat(users.ensure("baton-payment", "secret-1", permissions)).isEmpty();
    assertThat(broker.writes).isEmpty();
  }

  @Test
  void thePasswordAndPermissionsFollowThePlan() {
    users.ensure("baton-payment", "secret-1", permissions);
    broker.permissions.put("baton-payment", new PermissionSpec(".*", ".*", ".*"));

    assertThat(users.ensure("baton-payment", "secret-2", permissions)).hasSize(2);
    assertThat(broker.passwords).containsEntry("baton-payment", "secret-2");
    assertThat(broker.permissions).containsEntry("baton-payment", permissions);
  }

  @Test
  void tagsFollowThePlanToo() {
    users.ensure("baton-payment.keda", "secret-1", List.of("management"), permissions);
    assertThat(broker.tags).containsEntry("baton-payment.keda", List.of("management"));
    broker.tags.put("baton-payment.keda", List.of("administrator"));

    assertThat(users.ensure("baton-payment.keda", "secret-1", List.of("management"), permissions))
        .containsExactly("set the tags of user baton-payment.keda to [management]");
    assertThat(broker.tags).containsEntry("baton-payment.keda", List.of("management"));
  }
}
