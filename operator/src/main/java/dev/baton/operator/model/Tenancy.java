package dev.baton.operator.model;

import dev.baton.api.v1alpha1.AccessSpec;
import dev.baton.api.v1alpha1.WorkerService;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Which namespace may do what with a service (docs/design.md#tenancy). Service names are global to the vhost while
 * WorkerServices live in namespaces: a namespace owns the services its WorkerServices provide.
 *
 * <ul>
 *   <li><b>Access</b>, closed by default: a Workflow commands only services provided in its own namespace, and a
 *       WorkerService subscribes only to events of services provided in its own namespace, unless the providing
 *       WorkerService grants more in {@code spec.access} ({@code commandsFrom}, {@code eventsTo}; {@code *} for every
 *       namespace), and only to the instance outcomes of its own namespace's Workflows. A subscription to a service no WorkerService provides is not granted: nobody could have granted
 *       it. The operator setting {@code BATON_TENANCY_OPEN=true} lets every namespace use every service (a cluster
 *       of one team).
 *   <li><b>Claims</b>, optional, the operator setting {@code BATON_TENANCY}: {@code namespace=pattern,pattern;...},
 *       patterns over service names with {@code *} (e.g. {@code shop=order-*,cart;payments=payment;*=sandbox-*}).
 *       Set, a WorkerService may claim only a name a rule of its namespace (or of {@code *}) allows. Unset: any free
 *       name (the older WorkerService keeps a name either way, {@link NameClaims}).
 * </ul>
 * Pure.
 */
public final class Tenancy {

  /** The default: access as the providers grant it, any free name claimed. */
  public static final Tenancy CLOSED = new Tenancy(Map.of(), false);

  /** Every namespace may command and subscribe to every service, and claim any free name (one team's cluster). */
  public static final Tenancy OPEN = new Tenancy(Map.of(), true);

  private static final Pattern RULE = Pattern.compile("([a-z0-9*][a-z0-9.*-]*)=([a-z0-9_*-]+(,[a-z0-9_*-]+)*)");

  private final Map<String, List<Pattern>> claims;
  private final boolean open;

  private Tenancy(Map<String, List<Pattern>> claims, boolean open) {
    this.claims = claims;
    this.open = open;
  }

  /** Closed access with the claim rules of {@code BATON_TENANCY}; see {@link #parse(String, boolean)}. */
  public static Tenancy parse(String claimRules) {
    return parse(claimRules, false);
  }

  /**
   * @param claimRules the value of {@code BATON_TENANCY}; null or blank: any namespace may claim any free name
   * @param open the value of {@code BATON_TENANCY_OPEN}: every namespace may use every service
   * @throws IllegalArgumentException naming the variable and what is wrong
   */
  public static Tenancy parse(String claimRules, boolean open) {
    if (claimRules == null || claimRules.isBlank()) {
      return open ? OPEN : CLOSED;
    }
    Map<String, List<Pattern>> rules = new LinkedHashMap<>();
    for (String rule : claimRules.split(";")) {
      String r = rule.replace(" ", "");
      if (r.isEmpty()) {
        continue;
      }
      if (!RULE.matcher(r).matches()) {
        throw new IllegalArgumentException("BATON_TENANCY: expected namespace=pattern[,pattern][;...], e.g. "
            + "'shop=order-*,cart;payments=payment', got '" + rule.trim() + "'");
      }
      String[] parts = r.split("=", 2);
      List<Pattern> patterns = rules.computeIfAbsent(parts[0], k -> new ArrayList<>());
      for (String glob : parts[1].split(",")) {
        patterns.add(glob(glob));
      }
    }
    return new Tenancy(Map.copyOf(rules), open);
  }

  /** Whether every namespace may use every service ({@code BATON_TENANCY_OPEN}). */
  public boolean isOpen() {
    return open;
  }

  /** Whether claim rules ({@code BATON_TENANCY}) restrict which names a namespace may claim. */
  public boolean restrictsClaims() {
    return !claims.isEmpty();
  }

  /** Whether a WorkerService of {@code namespace} may claim {@code service}. */
  public boolean mayClaim(String namespace, String service) {
    if (!restrictsClaims()) {
      return true;
    }
    return matches(claims.get(namespace), service) || matches(claims.get("*"), service);
  }

  /** Why a WorkerService of {@code namespace} may not claim {@code service}, for its status; empty when it may. */
  public Optional<String> claimRefusal(String namespace, String service) {
    return mayClaim(namespace, service) ? Optional.empty() : Optional.of("namespace '" + namespace
        + "' may not claim service '" + service + "': the operator's BATON_TENANCY allows it "
        + allowed(namespace) + "; ask the platform team, or pick a name it allows");
  }

  /**
   * Why Workflows of namespace {@code from} may not send commands to {@code service}, which {@code provider} provides;
   * empty when they may.
   */
  public Optional<String> commandRefusal(String from, String service, WorkerService provider) {
    if (open || grants(provider, from, AccessSpec::getCommandsFrom)) {
      return Optional.empty();
    }
    return Optional.of(refusal(from, "send commands to", service, provider, "commandsFrom", AccessSpec::getCommandsFrom));
  }

  /**
   * Why WorkerServices of namespace {@code from} may not subscribe to events of {@code service}; empty when they may.
   *
   * @param provider the WorkerService that holds the service name, if one does
   */
  public Optional<Refusal> subscriptionRefusal(String from, String service, Optional<WorkerService> provider) {
    if (open) {
      return Optional.empty();
    }
    if (provider.isEmpty()) {
      return Optional.of(new Refusal("namespace " + from + " may not subscribe to events of service " + service
          + ": no WorkerService provides it yet; the subscription is bound once one does in " + from
          + ", or in another namespace with " + from + " in its spec.access.eventsTo", false));
    }
    if (grants(provider.get(), from, AccessSpec::getEventsTo)) {
      return Optional.empty();
    }
    return Optional.of(new Refusal(
        refusal(from, "subscribe to events of", service, provider.get(), "eventsTo", AccessSpec::getEventsTo), true));
  }

  /**
   * Why WorkerServices of namespace {@code from} may not receive the instance outcomes of Workflow {@code workflow} of
   * {@code namespace}; empty when they may. Outcomes stay in their namespace: a Workflow has no {@code spec.access} to
   * grant them further, so only {@code BATON_TENANCY_OPEN} lets another namespace have them. Refused, the subscription
   * is declared nowhere, and queues an open operator had declared for it go ({@link Refusal#byProvider}).
   */
  public Optional<Refusal> outcomeRefusal(String from, String namespace, String workflow) {
    if (open || from.equals(namespace)) {
      return Optional.empty();
    }
    return Optional.of(new Refusal("namespace " + from + " may not receive the outcomes of Workflow " + namespace + "/"
        + workflow + ": a WorkerService receives only the outcomes of its own namespace's Workflows; subscribe in "
        + namespace + ", or name a Workflow of " + from, true));
  }

  /**
   * Why a use of a service (or of a Workflow's outcomes) is not granted.
   *
   * @param byProvider true when the WorkerService providing the service does not grant it, or the outcomes belong to
   *     another namespace (what such a grant allowed is withdrawn); false when no WorkerService provides the service
   *     yet
   */
  public record Refusal(String message, boolean byProvider) {}

  /** Its own namespace always may; another if the provider lists it, or {@code *}. */
  private static boolean grants(WorkerService provider, String namespace,
      Function<AccessSpec, List<String>> grant) {
    if (namespace.equals(provider.getMetadata().getNamespace())) {
      return true;
    }
    List<String> listed = listed(provider, grant);
    return listed.contains(namespace) || listed.contains(AccessSpec.EVERY_NAMESPACE);
  }

  private static List<String> listed(WorkerService provider, Function<AccessSpec, List<String>> grant) {
    AccessSpec access = provider.getSpec() == null ? null : provider.getSpec().getAccess();
    return access == null || grant.apply(access) == null ? List.of() : grant.apply(access);
  }

  /** What a person reads: who may not do what, what the provider lists, and whom to ask for what. */
  private static String refusal(String from, String doing, String service, WorkerService provider, String field,
      Function<AccessSpec, List<String>> grant) {
    return "namespace " + from + " may not " + doing + " service " + service + " provided in "
        + provider.getMetadata().getNamespace() + ": its WorkerService " + provider.getMetadata().getName()
        + " lists " + field + " " + listed(provider, grant) + "; ask its owners to add " + from + " to spec.access."
        + field;
  }

  private String allowed(String namespace) {
    List<String> globs = new ArrayList<>();
    for (String key : List.of(namespace, "*")) {
      List<Pattern> ps = claims.get(key);
      if (ps != null) {
        ps.forEach(p -> globs.add(p.pattern().replace("[a-z0-9_-]*", "*").replace("^", "").replace("$", "")));
      }
    }
    return globs.isEmpty() ? "no service name in this namespace" : "only " + String.join(", ", globs);
  }

  private static boolean matches(List<Pattern> patterns, String service) {
    return patterns != null && patterns.stream().anyMatch(p -> p.matcher(service).matches());
  }

  private static Pattern glob(String glob) {
    return Pattern.compile("^" + glob.replace("*", "[a-z0-9_-]*") + "$");
  }

  @Override
  public String toString() {
    return (open ? "open" : "closed") + (restrictsClaims() ? ", claim rules" : "");
  }
}
