package dev.baton.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.WorkerService;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The tenancy rules: who may claim which service name, who may subscribe to whom. */
class TenancyTest {

  static final Tenancy RULES = Tenancy.parse("shop=order-*,cart; payments=payment; *=sandbox-*");

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
    assertThat(Tenancy.OPEN.mayClaim(ns, service)).isTrue();
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
    assertThat(Tenancy.parse(" ").isOpen()).isTrue();
  }

  @Test
  void subscribers_from_another_namespace_need_the_providers_annotation_once_rules_are_set() {
    WorkerService provider = ws("payments", "payment", null);
    WorkerService subscriber = ws("shop", "mailer", null);

    assertThat(Tenancy.OPEN.subscriptionRefusal(subscriber, "payment", Optional.of(provider))).isEmpty();
    assertThat(RULES.subscriptionRefusal(subscriber, "payment", Optional.of(provider))).get().asString()
        .contains("provided in namespace 'payments'", Tenancy.SUBSCRIBERS);
    assertThat(RULES.subscriptionRefusal(ws("payments", "audit", null), "payment", Optional.of(provider))).isEmpty();
    assertThat(RULES.subscriptionRefusal(subscriber, "payment", Optional.of(ws("payments", "payment", "shop, ops"))))
        .isEmpty();
    assertThat(RULES.subscriptionRefusal(subscriber, "payment", Optional.of(ws("payments", "payment", "*"))))
        .isEmpty();
    assertThat(RULES.subscriptionRefusal(subscriber, "nobody", Optional.empty())).isEmpty();
  }

  @Test
  void the_providers_annotation_restricts_subscribers_even_without_rules() {
    WorkerService provider = ws("payments", "payment", "ops");

    assertThat(Tenancy.OPEN.subscriptionRefusal(ws("shop", "mailer", null), "payment", Optional.of(provider)))
        .get().asString().contains("lets only 'ops' subscribe");
    assertThat(Tenancy.OPEN.subscriptionRefusal(ws("ops", "pager", null), "payment", Optional.of(provider)))
        .isEmpty();
  }

  private static WorkerService ws(String namespace, String name, String subscribers) {
    WorkerService ws = new WorkerService();
    ws.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name)
        .withAnnotations(subscribers == null ? Map.of() : Map.of(Tenancy.SUBSCRIBERS, subscribers)).build());
    return ws;
  }
}
