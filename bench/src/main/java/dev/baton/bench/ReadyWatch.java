package dev.baton.bench;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/** How many resources of a kind are Ready now, as a watch tells: one event per change, not a list per look. */
final class ReadyWatch<T extends HasMetadata> implements AutoCloseable {

  private final Set<String> ready = ConcurrentHashMap.newKeySet();
  private final SharedIndexInformer<T> informer;

  ReadyWatch(Informable<T> resources, Predicate<T> isReady) {
    this.informer = resources.inform(new ResourceEventHandler<>() {
      @Override
      public void onAdd(T r) {
        onUpdate(null, r);
      }

      @Override
      public void onUpdate(T before, T r) {
        if (isReady.test(r)) {
          ready.add(r.getMetadata().getName());
        } else {
          ready.remove(r.getMetadata().getName());
        }
      }

      @Override
      public void onDelete(T r, boolean unknownFinalState) {
        ready.remove(r.getMetadata().getName());
      }
    });
  }

  long ready() {
    return ready.size();
  }

  @Override
  public void close() {
    informer.stop();
  }
}
