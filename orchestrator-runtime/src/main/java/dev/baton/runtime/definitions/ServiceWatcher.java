package dev.baton.runtime.definitions;

import dev.baton.api.v1alpha1.WorkerService;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches WorkerService resources, read-only, for what the runtime does with them (their {@code paused}), in the
 * namespaces the runtime follows. Never fatal: a cluster that does not let the runtime list them (a chart older than
 * the runtime) or has no such kind leaves the watch off, said once in the log, and {@link #all} empty.
 */
public final class ServiceWatcher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceWatcher.class);
  private static final long SYNC_SECONDS = 30;

  private final List<String> namespaces;
  private final List<SharedIndexInformer<WorkerService>> informers;

  private ServiceWatcher(List<String> namespaces, List<SharedIndexInformer<WorkerService>> informers) {
    this.namespaces = List.copyOf(namespaces);
    this.informers = informers;
  }

  /** Starts the watch and waits for the first listing; empty when the WorkerServices cannot be watched. */
  public static Optional<ServiceWatcher> start(KubernetesClient client, List<String> namespaces) {
    List<SharedIndexInformer<WorkerService>> informers = new ArrayList<>();
    try {
      if (namespaces.isEmpty()) {
        informers.add(client.resources(WorkerService.class).inAnyNamespace().runnableInformer(0));
      } else {
        for (String ns : namespaces) {
          informers.add(client.resources(WorkerService.class).inNamespace(ns).runnableInformer(0));
        }
      }
      for (SharedIndexInformer<WorkerService> informer : informers) {
        informer.start().toCompletableFuture().get(SYNC_SECONDS, TimeUnit.SECONDS);
      }
      LOG.info("Watching WorkerServices in {}", namespaces.isEmpty() ? "all namespaces" : namespaces);
      return Optional.of(new ServiceWatcher(namespaces, informers));
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      informers.forEach(SharedIndexInformer::close);
      LOG.warn("Cannot watch WorkerServices, so their spec.paused is not followed (give the runtime get, list and "
          + "watch on workerservices.baton.dev): {}", e.getCause() != null ? e.getCause().toString() : e.toString());
      return Optional.empty();
    }
  }

  /** Whether WorkerServices of this namespace are watched. */
  public boolean watches(String namespace) {
    return namespaces.isEmpty() || namespaces.contains(namespace);
  }

  /** Every WorkerService in the watched namespaces, as the watch has them now. */
  public List<WorkerService> all() {
    List<WorkerService> all = new ArrayList<>();
    for (SharedIndexInformer<WorkerService> informer : informers) {
      all.addAll(informer.getStore().list());
    }
    return all;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
  }
}
