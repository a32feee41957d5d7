package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.autoscaling.KedaAutoscaling;
import dev.baton.operator.status.ConditionState;
import dev.baton.operator.topology.WorkerUserSync;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.List;
import java.util.Optional;

/**
 * A WorkerService's broker users with the passwords of their Secrets (docs/design.md#security): the workers' user with
 * exactly the planned permissions and, with autoscaling, KEDA's read-only user. They follow the dependents, which
 * write the Secrets that hold the passwords.
 */
final class BrokerUsers {

  private final WorkerUserSync users;
  private final KedaAutoscaling autoscaling;

  BrokerUsers(WorkerUserSync users, KedaAutoscaling autoscaling) {
    this.users = users;
    this.autoscaling = autoscaling;
  }

  /**
   * @param last the pass being reused, if any: its user was already checked against the password it remembers
   * @param changes what was changed, for the log
   * @return the AutoscalingReady verdict, which KEDA's user comes with; null when autoscaling is not asked for
   */
  ConditionState ensure(ServiceRequest request, WorkerDependents.Applied applied, Optional<ServicePass> last,
      Context<WorkerService> context, List<String> changes) {
    if (last.isEmpty() || !last.get().passwordDigest().equals(applied.passwordDigest())) {
      changes.addAll(users.ensure(request.username(), applied.password(), request.topology().workerPermissions()));
    }
    return autoscaling.verdict(request.resource(), applied.autoscaler(), applied.kedaRefused(), context, changes);
  }
}
