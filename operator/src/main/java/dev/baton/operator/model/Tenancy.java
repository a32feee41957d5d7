package dev.baton.operator.model;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which namespaces may do what with service names (docs/design.md#tenancy). Service names are global to the vhost
 * while WorkerServices live in namespaces, so without a rule any namespace could claim a free name (and inherit its
 * retained queues and messages) or subscribe to any service's events.
 *
 * <ul>
 *   <li><b>Claims</b>, the operator setting {@code BATON_TENANCY}: {@code namespace=pattern,pattern;...}, patterns
 *       over service names with {@code *} (e.g. {@code shop=order-*,cart;payments=payment;*=sandbox-*}). Set, a
 *       WorkerService may claim only a name a rule of its namespace (or of {@code *}) allows. Unset: any.
 *   <li><b>Subscriptions</b>, the annotation {@value #SUBSCRIBERS} on the WorkerService that provides a service: the
 *       namespaces (comma-separated, {@code *} for all) whose WorkerServices may subscribe to its events, besides its
 *       own. Without the annotation: its own namespace only when {@code BATON_TENANCY} is set, any namespace when not.
 * </ul>
 * Pure.
 */
public final class Tenancy {

  /** The annotation on a providing WorkerService that lists the namespaces which may subscribe to its events. */
  public static final String SUBSCRIBERS = "baton.dev/subscribers";

  /** No rules: every namespace may claim every free name and subscribe to every service (Baton's first behaviour). */
  public static final Tenancy OPEN = new Tenancy(Map.of());

  private static final Pattern RULE = Pattern.compile("([a-z0-9*][a-z0-9.*-]*)=([a-z0-9_*-]+(,[a-z0-9_*-]+)*)");

  private final Map<String, List<Pattern>> claims;

  private Tenancy(Map<String, List<Pattern>> claims) {
    this.claims = claims;
  }

  /**
   * @param setting the value of {@code BATON_TENANCY}; null or blank: {@link #OPEN}
   * @throws IllegalArgumentException naming the variable and what is wrong
   */
  public static Tenancy parse(String setting) {
    if (setting == null || setting.isBlank()) {
      return OPEN;
    }
    Map<String, List<Pattern>> rules = new LinkedHashMap<>();
    for (String rule : setting.split(";")) {
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
    return rules.isEmpty() ? OPEN : new Tenancy(Map.copyOf(rules));
  }

  public boolean isOpen() {
    return claims.isEmpty();
  }

  /** Whether a WorkerService of {@code namespace} may claim {@code service}. */
  public boolean mayClaim(String namespace, String service) {
    if (isOpen()) {
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
   * Why {@code subscriber} may not subscribe to {@code service}, provided by {@code provider} (empty when no
   * WorkerService provides it yet: there is nothing to receive, and the check is made again when one does).
   */
  public Optional<String> subscriptionRefusal(HasMetadata subscriber, String service, Optional<? extends HasMetadata> provider) {
    if (provider.isEmpty()) {
      return Optional.empty();
    }
    String from = subscriber.getMetadata().getNamespace();
    HasMetadata p = provider.get();
    String own = p.getMetadata().getNamespace();
    if (own == null || own.equals(from)) {
      return Optional.empty();
    }
    String listed = p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(SUBSCRIBERS);
    if (listed == null) {
      return isOpen() ? Optional.empty() : Optional.of("service '" + service + "' is provided in namespace '" + own
          + "', and with BATON_TENANCY set only its own namespace may subscribe unless its WorkerService lists '"
          + from + "' in the annotation " + SUBSCRIBERS);
    }
    for (String ns : listed.split(",")) {
      String n = ns.trim();
      if (n.equals("*") || n.equals(from)) {
        return Optional.empty();
      }
    }
    return Optional.of("service '" + service + "' is provided in namespace '" + own + "', whose WorkerService "
        + p.getMetadata().getName() + " lets only '" + listed + "' subscribe (annotation " + SUBSCRIBERS + ")");
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
}
