package dev.baton.operator.model;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.topology.ServiceModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Which events the WorkerServices of one namespace may receive ({@link Tenancy}): other services' as their providers
 * grant them, and the instance outcomes of the namespace's own Workflows. The subscriptions of a spec that are
 * granted are planned and declared; the others are left out of the plan, so nothing is declared for them (not even
 * their source exchange), and reported. A binding that a provider's grant no longer covers goes, whatever the spec
 * says ({@link #refusesEventsOf}), so a withdrawn grant cannot be kept by leaving a spec that cannot be applied. Pure.
 */
public final class SubscriptionGrants {

  private final String namespace;
  private final NameClaims<WorkerService> claims;
  private final Tenancy tenancy;

  private SubscriptionGrants(String namespace, NameClaims<WorkerService> claims, Tenancy tenancy) {
    this.namespace = namespace;
    this.claims = claims;
    this.tenancy = tenancy;
  }

  /**
   * @param namespace the subscribing WorkerServices'
   * @param claims who provides which service name
   */
  public static SubscriptionGrants of(String namespace, NameClaims<WorkerService> claims, Tenancy tenancy) {
    return new SubscriptionGrants(namespace, claims, tenancy);
  }

  /** Which subscriptions of {@code model} are granted. */
  public Verdict decide(ServiceModel model) {
    List<ServiceModel.Subscription> granted = new ArrayList<>();
    List<Refused> refused = new ArrayList<>();
    for (ServiceModel.Subscription s : model.subscriptions()) {
      Optional<Tenancy.Refusal> refusal = refusal(s.source());
      if (refusal.isPresent()) {
        refused.add(new Refused(s.name(), refusal.get()));
      } else {
        granted.add(s);
      }
    }
    return new Verdict(new ServiceModel(model.service(), model.queueType(), model.commands(), granted), refused);
  }

  private Optional<Tenancy.Refusal> refusal(ServiceModel.Source source) {
    if (source instanceof ServiceModel.WorkflowOutcomes outcomes) {
      return tenancy.outcomeRefusal(namespace, outcomes.namespace(), outcomes.workflow());
    }
    String service = ((ServiceModel.ServiceEvents) source).service();
    return tenancy.subscriptionRefusal(namespace, service, claims.holder(service));
  }

  /**
   * Whether a binding from {@code exchange} brings events the namespace may not receive: it is the event exchange of a
   * service whose providing WorkerService does not grant the namespace.
   */
  public boolean refusesEventsOf(String exchange) {
    return EventExchanges.serviceOf(exchange).flatMap(service -> claims.holder(service)
        .flatMap(provider -> tenancy.subscriptionRefusal(namespace, service, Optional.of(provider)))).isPresent();
  }

  /** A subscription that is not granted, and why. */
  public record Refused(String subscription, Tenancy.Refusal refusal) {}

  /**
   * @param granted the service with its granted subscriptions only: what is declared
   * @param refused the subscriptions that are not granted, in spec order, each with why
   */
  public record Verdict(ServiceModel granted, List<Refused> refused) {

    public Verdict {
      refused = List.copyOf(refused);
    }

    public boolean all() {
      return refused.isEmpty();
    }

    /**
     * The subscriptions whose provider refuses them: a grant was withdrawn (or never given), and their queues go with
     * their messages. One refused only because no WorkerService provides its service yet keeps its queues until they
     * are empty, like any queue the plan no longer lists: a provider being replaced must not cost its subscribers the
     * events already queued.
     */
    public List<String> withdrawn() {
      return refused.stream().filter(r -> r.refusal().byProvider()).map(Refused::subscription).toList();
    }

    /** For the Ready condition: every refused subscription and why. */
    public String message() {
      return refused.stream().map(r -> "subscription '" + r.subscription() + "': " + r.refusal().message())
          .collect(Collectors.joining("; "));
    }
  }
}
