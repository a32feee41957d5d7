package dev.baton.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.AccessSpec;
import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.contract.InstanceOutcome;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The tenancy rules (docs/design.md#tenancy): who may claim which service name, and — closed by default — who may
 * command a service and receive its events, as its provider's spec.access grants, and who may receive a Workflow's
 * instance outcomes (its own namespace).
 */
class TenancyTest {

  static final Tenancy RULES = Tenancy.parse("shop=order-*,cart; payments=payment; *=sandbox-*");

  // --- claims (BATON_TENANCY) --------------------------------------------------------------------------------------

  @ParameterizedTest(name = "{0} claims {1}: {2}")
  @CsvSource({
    "shop,     order-intake, true",
    "shop,     cart,         true",
    "shop,     payment,      false",
    "payments, payment,      true",
    "payments, payments,     false",
    "team-x,   sandbox-demo, true",
    "team-x,   cart,         false",
  })
  void a_namespace_claims_only_the_names_its_rules_or_the_star_rule_allow(String ns, String service, boolean may) {
    assertThat(RULES.mayClaim(ns, service)).isEqualTo(may);
    assertThat(Tenancy.CLOSED.mayClaim(ns, service)).as("without rules any free name").isTrue();
  }

  @Test
  void a_refused_claim_says_what_the_namespace_may_claim() {
    assertThat(RULES.claimRefusal("shop", "payment")).get().asString()
        .contains("namespace 'shop' may not claim service 'payment'", "only order-*, cart, sandbox-*");
  }

  @Test
  void a_bad_setting_names_the_variable_and_the_rule() {
    assertThatThrownBy(() -> Tenancy.parse("shop: cart")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("BATON_TENANCY: expected namespace=pattern").hasMessageContaining("'shop: cart'");
    assertThat(Tenancy.parse(" ").restrictsClaims()).isFalse();
    assertThat(Tenancy.parse(" ")).isSameAs(Tenancy.CLOSED);
    assertThat(Tenancy.parse(null, true)).isSameAs(Tenancy.OPEN);
  }

  // --- access: the decision table ------------------------------------------------------------------------------------

  /**
   * A WorkerService of {@code from} subscribing to service payment, provided in {@code provider} ('-': nobody provides
   * it) whose spec.access.eventsTo is {@code eventsTo} (space-separated; '-': no spec.access at all).
   */
  @ParameterizedTest(name = "{0} subscribes to payment of {1} listing {2} (open: {3}): {4}")
  @CsvSource({
    "team-a, team-a, -,             false, granted",
    "team-b, team-a, -,             false, refused by its provider",
    "team-b, team-a, '',            false, refused by its provider",
    "team-b, team-a, ops,           false, refused by its provider",
    "team-b, team-a, ops team-b,    false, granted",
    "team-b, team-a, *,             false, granted",
    "team-b, -,      -,             false, refused: nobody provides it",
    "team-a, -,      -,             false, refused: nobody provides it",
    "team-b, team-a, -,             true,  granted",
    "team-b, -,      -,             true,  granted",
  })
  void a_subscription_is_granted_by_its_own_namespace_or_the_providers_eventsTo(String from, String provider,
      String eventsTo, boolean open, String verdict) {
    Tenancy tenancy = open ? Tenancy.OPEN : Tenancy.CLOSED;
    Optional<WorkerService> holder = provider.equals("-") ? Optional.empty()
        : Optional.of(provider(provider, "payment", null, eventsTo));

    Optional<Tenancy.Refusal> refusal = tenancy.subscriptionRefusal(from, "payment", holder);

    assertThat(refusal.map(r -> r.byProvider() ? "refused by its provider" : "refused: nobody provides it")
        .orElse("granted")).isEqualTo(verdict);
  }

  /** A Workflow of {@code from} sending commands to payment, provided in {@code provider} listing {@code commandsFrom}. */
  @ParameterizedTest(name = "{0} commands payment of {1} listing {2} (open: {3}): {4}")
  @CsvSource({
    "team-a, team-a, -,          false, granted",
    "team-b, team-a, -,          false, refused",
    "team-b, team-a, ops,        false, refused",
    "team-b, team-a, team-b,     false, granted",
    "team-b, team-a, *,          false, granted",
    "team-b, team-a, -,          true,  granted",
  })
  void a_command_is_granted_by_its_own_namespace_or_the_providers_commandsFrom(String from, String provider,
      String commandsFrom, boolean open, String verdict) {
    Tenancy tenancy = open ? Tenancy.OPEN : Tenancy.CLOSED;

    Optional<String> refusal = tenancy.commandRefusal(from, "payment", provider(provider, "payment", commandsFrom, null));

    assertThat(refusal.isPresent() ? "refused" : "granted").isEqualTo(verdict);
  }

  @Test
  void events_are_not_granted_by_commandsFrom_nor_commands_by_eventsTo() {
    WorkerService payment = provider("team-a", "payment", "team-b", "ops");
    assertThat(Tenancy.CLOSED.subscriptionRefusal("team-b", "payment", Optional.of(payment))).isPresent();
    assertThat(Tenancy.CLOSED.commandRefusal("ops", "payment", payment)).isPresent();
  }

  @Test
  void a_refusal_says_who_may_not_do_what_what_the_provider_lists_and_whom_to_ask() {
    WorkerService payment = provider("team-a", "payment", "ops", "ops");

    assertThat(Tenancy.CLOSED.subscriptionRefusal("team-b", "payment", Optional.of(payment)).orElseThrow().message())
        .isEqualTo("namespace team-b may not subscribe to events of service payment provided in team-a: its "
            + "WorkerService payment lists eventsTo [ops]; ask its owners to add team-b to spec.access.eventsTo");
    assertThat(Tenancy.CLOSED.commandRefusal("team-b", "payment", payment).orElseThrow())
        .isEqualTo("namespace team-b may not send commands to service payment provided in team-a: its "
            + "WorkerService payment lists commandsFrom [ops]; ask its owners to add team-b to spec.access.commandsFrom");
    assertThat(Tenancy.CLOSED.subscriptionRefusal("team-b", "payment", Optional.empty()).orElseThrow().message())
        .startsWith("namespace team-b may not subscribe to events of service payment: no WorkerService provides it yet");
  }

  /** A WorkerService of {@code from} subscribing to the outcomes of Workflow order-fulfilment of {@code namespace}. */
  @ParameterizedTest(name = "{0} receives the outcomes of {1}/order-fulfilment (open: {2}): {3}")
  @CsvSource({
    "team-a, team-a, false, granted",
    "team-b, team-a, false, refused",
    "team-b, team-a, true,  granted",
  })
  void outcomes_are_granted_to_the_workflows_own_namespace_only(String from, String namespace, boolean open,
      String verdict) {
    Tenancy tenancy = open ? Tenancy.OPEN : Tenancy.CLOSED;

    Optional<Tenancy.Refusal> refusal = tenancy.outcomeRefusal(from, namespace, "order-fulfilment");

    assertThat(refusal.isPresent() ? "refused" : "granted").isEqualTo(verdict);
  }

  @Test
  void a_refused_outcome_subscription_says_whose_outcomes_stay_where() {
    Tenancy.Refusal refusal = Tenancy.CLOSED.outcomeRefusal("team-b", "team-a", "order-fulfilment").orElseThrow();
    assertThat(refusal.message()).isEqualTo("namespace team-b may not receive the outcomes of Workflow "
        + "team-a/order-fulfilment: a WorkerService receives only the outcomes of its own namespace's Workflows; "
        + "subscribe in team-a, or name a Workflow of team-b");
    assertThat(refusal.byProvider()).as("what an open operator had declared for it goes").isTrue();
  }

  // --- what a WorkerService's subscriptions get, and what a Workflow's queue may stay bound to ----------------------

  @Test
  void a_subscription_to_another_namespaces_outcomes_is_left_out_of_the_plan() {
    NameClaims<WorkerService> claims = WorkerServiceTranslator.claims(List.of(provider("team-b", "alerts", null, null)));
    ServiceModel alerts = new ServiceModel("alerts", QueueType.CLASSIC, List.of(), List.of(
        outcomes("own_failed", "team-b"),
        outcomes("their_failed", "team-a")));

    SubscriptionGrants.Verdict verdict = SubscriptionGrants.of("team-b", claims, Tenancy.CLOSED).decide(alerts);

    assertThat(verdict.granted().subscriptions()).extracting(ServiceModel.Subscription::name)
        .containsExactly("own_failed");
    assertThat(verdict.refused()).extracting(SubscriptionGrants.Refused::subscription).containsExactly("their_failed");
    assertThat(verdict.message()).startsWith("subscription 'their_failed': namespace team-b may not receive the "
        + "outcomes of Workflow team-a/order-fulfilment");
    assertThat(SubscriptionGrants.of("team-b", claims, Tenancy.OPEN).decide(alerts).all()).isTrue();
  }

  @Test
  void only_granted_subscriptions_are_planned_and_only_those_a_provider_refuses_are_withdrawn() {
    NameClaims<WorkerService> claims = WorkerServiceTranslator.claims(List.of(
        provider("team-a", "payment", null, "team-b"),
        provider("team-a", "inventory", null, null),
        provider("team-b", "mailer", null, null)));
    ServiceModel mailer = new ServiceModel("mailer", QueueType.CLASSIC,
        List.of(new ServiceModel.Command("send", RetryStaircase.NONE)), List.of(
            subscription("paid", "payment"),
            subscription("stock_low", "inventory"),
            subscription("shipped", "shipping"),
            subscription("bounced", "mailer")));

    SubscriptionGrants.Verdict verdict = SubscriptionGrants.of("team-b", claims, Tenancy.CLOSED).decide(mailer);

    assertThat(verdict.granted().subscriptions()).extracting(ServiceModel.Subscription::name)
        .containsExactly("paid", "bounced");
    assertThat(verdict.granted().commands()).extracting(ServiceModel.Command::name).containsExactly("send");
    assertThat(verdict.refused()).extracting(SubscriptionGrants.Refused::subscription)
        .containsExactly("stock_low", "shipped");
    assertThat(verdict.withdrawn()).as("nobody provides shipping: its queues drain as usual").containsExactly("stock_low");
    assertThat(verdict.message()).startsWith("subscription 'stock_low': namespace team-b may not subscribe")
        .contains("; subscription 'shipped': namespace team-b may not subscribe to events of service shipping: "
            + "no WorkerService provides it yet");
    assertThat(SubscriptionGrants.of("team-b", claims, Tenancy.OPEN).decide(mailer).all()).isTrue();
  }

  @Test
  void a_binding_goes_when_it_brings_events_of_a_provider_that_refuses_the_namespace() {
    NameClaims<WorkerService> claims = WorkerServiceTranslator.claims(List.of(
        provider("team-a", "payment", null, "team-b"),
        provider("team-a", "inventory", null, null),
        provider("team-b", "mailer", null, null)));
    SubscriptionGrants grants = SubscriptionGrants.of("team-b", claims, Tenancy.CLOSED);

    assertThat(grants.refusesEventsOf("inventory.event.topic.ex")).isTrue();
    assertThat(grants.refusesEventsOf("payment.event.topic.ex")).isFalse();
    assertThat(grants.refusesEventsOf("mailer.event.topic.ex")).as("its own").isFalse();
    assertThat(grants.refusesEventsOf("shipping.event.topic.ex")).as("nobody's: left to the plan").isFalse();
    assertThat(grants.refusesEventsOf("mailer.retry.direct.ex")).as("not an event exchange").isFalse();
    assertThat(SubscriptionGrants.of("team-b", claims, Tenancy.OPEN).refusesEventsOf("inventory.event.topic.ex"))
        .isFalse();
  }

  @Test
  void a_workflow_may_command_its_own_namespaces_services_and_those_that_grant_it() {
    ServiceDirectory directory = ServiceDirectory.of(List.of(
        provider("team-a", "payment", "team-b", null),
        provider("team-a", "inventory", null, null),
        provider("team-b", "shipping", null, null)));
    CommandGrants grants = CommandGrants.of("team-b", directory, Tenancy.CLOSED);

    assertThat(grants.refusal(List.of("payment", "shipping", "nobody"))).isEmpty();
    assertThat(grants.refusal(List.of("payment", "inventory", "inventory"))).get().asString()
        .isEqualTo("namespace team-b may not send commands to service inventory provided in team-a: its "
            + "WorkerService inventory lists commandsFrom []; ask its owners to add team-b to spec.access.commandsFrom");
    assertThat(grants.refusesEventsOf("inventory.event.topic.ex")).isTrue();
    assertThat(grants.refusesEventsOf("payment.event.topic.ex")).isFalse();
    assertThat(CommandGrants.of("team-b", directory, Tenancy.OPEN).refusal(List.of("inventory"))).isEmpty();
  }

  /**
   * @param commandsFrom space-separated namespaces, '-' or null: no spec.access
   * @param eventsTo likewise
   */
  static WorkerService provider(String namespace, String service, String commandsFrom, String eventsTo) {
    WorkerService ws = new WorkerService();
    ws.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(service)
        .withCreationTimestamp("2026-01-01T00:00:00Z").build());
    WorkerServiceSpec spec = new WorkerServiceSpec();
    spec.getCommands().add(new CommandSpec("work", null));
    if (listed(commandsFrom) != null || listed(eventsTo) != null) {
      spec.setAccess(new AccessSpec(listed(commandsFrom), listed(eventsTo)));
    }
    ws.setSpec(spec);
    return ws;
  }

  private static List<String> listed(String namespaces) {
    if (namespaces == null || namespaces.equals("-")) {
      return null;
    }
    return new ArrayList<>(Arrays.stream(namespaces.split(" ")).filter(n -> !n.isBlank()).toList());
  }

  private static ServiceModel.Subscription outcomes(String name, String namespace) {
    return new ServiceModel.Subscription(name, new ServiceModel.WorkflowOutcomes(namespace, "order-fulfilment",
        List.of(InstanceOutcome.FAILED)), RetryStaircase.NONE);
  }

  private static ServiceModel.Subscription subscription(String name, String source) {
    return new ServiceModel.Subscription(name, source, "#", RetryStaircase.NONE);
  }
}
