package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.BatonStatus;
import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Collection;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * An event source over the primary kind itself, so that when one resource gives up a vhost-wide name (deleted,
 * renamed) the resources waiting for it in {@code Conflict} are reconciled at once, not at the next resync; and so
 * are the resources that otherwise depend on the one that changed (a WorkerService subscribing to another's events,
 * which its spec.access may grant or withdraw). Both are looked up in the primary cache's indexes
 * ({@link CacheIndexes}), not found by walking every resource per event.
 */
final class ClaimPeers {

  private ClaimPeers() {}

  /**
   * @param claimIndex the primary cache's index by claimed name ({@link CacheIndexes})
   * @param names the names a changed resource claims or held: the resources claiming them are reconciled
   * @param dependents the resources that otherwise depend on the changed one, looked up in the primary cache's indexes
   */
  static <S extends BatonStatus, P extends CustomResource<?, S>> InformerEventSource<P, P> eventSource(
      Class<P> kind, EventSourceContext<P> context, String claimIndex, Function<P, Collection<String>> names,
      BiFunction<P, IndexedResourceCache<P>, Stream<P>> dependents) {
    IndexedResourceCache<P> primaries = context.getPrimaryCache();
    return new InformerEventSource<>(InformerEventSourceConfiguration.from(kind, kind)
        .withName(kind.getSimpleName().toLowerCase() + "-claims")
        // Only spec changes and deletions can move a claim; status patches would just cause busy work.
        .withOnUpdateFilter((next, previous) ->
            !Objects.equals(next.getMetadata().getGeneration(), previous.getMetadata().getGeneration()))
        .withSecondaryToPrimaryMapper((P changed) -> {
          ResourceID self = ResourceID.fromResource(changed);
          return Stream.concat(CacheIndexes.lookUp(primaries, claimIndex, names.apply(changed)),
                  dependents.apply(changed, primaries))
              .map(ResourceID::fromResource)
              .filter(id -> !id.equals(self))
              .collect(Collectors.toSet());
        })
        .build(), context);
  }
}
