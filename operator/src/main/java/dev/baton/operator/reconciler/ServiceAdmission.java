package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.validation.Validated;
import dev.baton.contract.Names;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.dependent.ForeignObjects;
import dev.baton.operator.model.NameClaims;
import dev.baton.operator.model.SubscriptionGrants;
import dev.baton.operator.model.WorkerServiceTranslator;
import dev.baton.operator.status.ConditionState;
import dev.baton.operator.status.Reason;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a WorkerService's spec asks for, and whether it may have it: the spec must translate (with the RetryPolicies it
 * names), the tenancy rules must let its namespace claim the service name (docs/design.md#tenancy), the name must be
 * its own and not an older WorkerService's (docs/design.md#resources), no Secret or Deployment of someone else may
 * have the names its own would get, and a password it imports must exist. A refusal is a condition to report, not an
 * error: nothing is declared or deployed for that spec, and nothing is retried in a loop. An admitted spec gets only
 * the subscriptions its namespace is granted ({@link SubscriptionGrants}): its commands work while the others wait.
 */
final class ServiceAdmission {

  /**
   * Either the request to apply, or the Ready=False condition that says why nothing is applied; with who holds which
   * service name, either way.
   */
  record Admission(ServiceRequest request, ConditionState refusal, NameClaims<WorkerService> claims) {

    boolean refused() {
      return refusal != null;
    }
  }

  private final OperatorSettings settings;
  private final Function<ResourceID, Optional<RetryPolicy>> retryPolicies;

  /** @param retryPolicies the RetryPolicies the operator's informer holds, by namespace and name */
  ServiceAdmission(OperatorSettings settings, Function<ResourceID, Optional<RetryPolicy>> retryPolicies) {
    this.settings = settings;
    this.retryPolicies = retryPolicies;
  }

  Admission admit(WorkerService ws, Context<WorkerService> context) {
    String namespace = ws.getMetadata().getNamespace();
    NameClaims<WorkerService> claims = claims(context);
    Validated<ServiceModel> model = WorkerServiceTranslator.fromCrd(ws,
        name -> retryPolicies.apply(new ResourceID(name, namespace)));
    if (!model.isValid()) {
      return refused(Reason.of(model), model.message(), claims);
    }
    String service = model.value().service();
    Optional<String> forbidden = settings.tenancy().claimRefusal(namespace, service);
    if (forbidden.isPresent()) {
      return refused(Reason.FORBIDDEN, forbidden.get(), claims);
    }
    if (!claims.holds(ws, service)) {
      String holder = claims.holder(service).map(NameClaims::describe).orElse("another WorkerService");
      return refused(Reason.CONFLICT, "service '" + service + "' is already provided by WorkerService " + holder
          + ", which is older; nothing is declared for this one: set another spec.service, or delete one of the two",
          claims);
    }
    Optional<String> foreign = ForeignObjects.blocking(ws, context);
    if (foreign.isPresent()) {
      return refused(Reason.CONFLICT, foreign.get(), claims);
    }
    Validated<Optional<String>> imported = ImportedPassword.of(ws, context.getClient());
    if (!imported.isValid()) {
      return refused(Reason.of(imported), imported.message(), claims);
    }
    SubscriptionGrants grants = grants(ws, claims);
    SubscriptionGrants.Verdict subscriptions = grants.decide(model.value());
    return new Admission(new ServiceRequest(ws, model.value(), grants, subscriptions, claims,
        imported.value().orElse(null), TopologyPlanner.plan(subscriptions.granted()),
        Names.workerUser(settings.userPrefix(), service)), null, claims);
  }

  /** Who holds which service name, among all WorkerServices the operator sees, under the tenancy rules. */
  NameClaims<WorkerService> claims(Context<WorkerService> context) {
    return WorkerServiceTranslator.claims(CacheIndexes.claimants(context.getPrimaryCache(), CacheIndexes.SERVICE_CLAIM),
        settings.tenancy());
  }

  /** Which events the WorkerService's namespace may receive, as the providers of the vhost grant them. */
  SubscriptionGrants grants(WorkerService ws, NameClaims<WorkerService> claims) {
    return SubscriptionGrants.of(ws.getMetadata().getNamespace(), claims, settings.tenancy());
  }

  private static Admission refused(Reason reason, String message, NameClaims<WorkerService> claims) {
    return new Admission(null, ConditionState.failed(reason, message), claims);
  }
}
