package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.BatonStatus;
import dev.baton.operator.model.NameClaims;
import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * An event source over the primary kind itself, so that when one resource gives up a vhost-wide name (deleted,
 * renamed) the resources waiting for it in {@code Conflict} are reconciled at once, not at the next resync; and so
 * are the resources that otherwise depend on the one that changed (a WorkerService subscribing to another's events,
 * which its spec.access may grant or withdraw).
 */
final class ClaimPeers {

  private ClaimPeers() {}

  static <S extends BatonStatus, P extends CustomResource<?, S>> InformerEventSource<P, P> eventSource(
      Class<P> kind, EventSourceContext<P> context, Function<P, Optional<String>> claim) {
    return eventSource(kind, context, claim, (changed, peer) -> false);
  }

  /** @param dependsOn whether a resource (the second argument) depends on the one that changed (the first) */
  static <S extends BatonStatus, P extends CustomResource<?, S>> InformerEventSource<P, P> eventSource(
      Class<P> kind, EventSourceContext<P> context, Function<P, Optional<String>> claim, BiPredicate<P, P> dependsOn) {
    return new InformerEventSource<>(InformerEventSourceConfiguration.from(kind, kind)
        .withName(kind.getSimpleName().toLowerCase() + "-claims")
        // Only spec changes and deletions can move a claim; status patches would just cause busy work.
        .withOnUpdateFilter((next, previous) ->
            !Objects.equals(next.getMetadata().getGeneration(), previous.getMetadata().getGeneration()))
        .withSecondaryToPrimaryMapper((P changed) -> context.getPrimaryCache().list()
            .filter(p -> !ResourceID.fromResource(p).equals(ResourceID.fromResource(changed)))
            .filter(p -> claim.apply(changed).isPresent() && claim.apply(changed).equals(claim.apply(p))
                || NameClaims.inConflict(p.getStatus()) || dependsOn.test(changed, p))
            .map(ResourceID::fromResource)
            .collect(Collectors.toSet()))
        .build(), context);
  }
}
