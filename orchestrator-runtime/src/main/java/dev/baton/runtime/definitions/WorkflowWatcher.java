package dev.baton.runtime.definitions;

import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches Workflow resources, read-only, in all namespaces or in the configured ones. The runtime never writes
 * resources: the operator is the only writer of their status.
 *
 * <p>A Workflow that is being deleted ({@code metadata.deletionTimestamp} set: the operator's finalizer holds it while
 * it has unfinished instances) is still seen, as an update; {@link #isBeingDeleted} and {@link #failsRunningOnDelete}
 * say what that means for its instances (docs/design.md#runtime-semantics).
 */
public final class WorkflowWatcher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(WorkflowWatcher.class);

  /** The annotation that says what deleting the Workflow does to its unfinished instances. */
  public static final String ON_DELETE = "baton.dev/on-delete";
  /** {@link #ON_DELETE}: fail them at once (reason {@code WorkflowDeleted}); without it they run to their end. */
  public static final String FAIL_RUNNING = "fail-running";

  /** Told about Workflows as the watch sees them. */
  public interface Listener {
    void changed(Workflow workflow);

    void deleted(Workflow workflow);
  }

  private final KubernetesClient client;
  private final List<String> namespaces;
  private final List<SharedIndexInformer<Workflow>> informers = new ArrayList<>();

  private WorkflowWatcher(KubernetesClient client, List<String> namespaces) {
    this.client = client;
    this.namespaces = List.copyOf(namespaces);
  }

  /**
   * Starts the watch and returns once the first listing is in (so lookups right after start find what exists).
   *
   * @param listeners told in this order, each whatever the one before did
   */
  public static WorkflowWatcher start(KubernetesClient client, List<String> namespaces, Listener... listeners) {
    WorkflowWatcher w = new WorkflowWatcher(client, namespaces);
    ResourceEventHandler<Workflow> handler = new ResourceEventHandler<>() {
      @Override
      public void onAdd(Workflow obj) {
        tell(listeners, l -> l.changed(obj), obj);
      }

      @Override
      public void onUpdate(Workflow oldObj, Workflow newObj) {
        tell(listeners, l -> l.changed(newObj), newObj);
      }

      @Override
      public void onDelete(Workflow obj, boolean deletedFinalStateUnknown) {
        tell(listeners, l -> l.deleted(obj), obj);
      }
    };
    if (namespaces.isEmpty()) {
      w.informers.add(client.resources(Workflow.class).inAnyNamespace().inform(handler, 0));
    } else {
      for (String ns : namespaces) {
        w.informers.add(client.resources(Workflow.class).inNamespace(ns).inform(handler, 0));
      }
    }
    LOG.info("Watching Workflows in {}", namespaces.isEmpty() ? "all namespaces" : namespaces);
    return w;
  }

  private static void tell(Listener[] listeners, Consumer<Listener> call, Workflow w) {
    for (Listener listener : listeners) {
      try {
        call.accept(listener);
      } catch (RuntimeException e) {
        // The watch must survive anything a listener does.
        LOG.warn("Handling Workflow {}/{} failed: {}", w.getMetadata().getNamespace(), w.getMetadata().getName(),
            e.toString());
      } catch (Error e) {
        // An Error too: thrown into the informer, it would end the watch's event thread, silently.
        LOG.error("Handling Workflow {}/{} failed on an Error; the watch goes on", w.getMetadata().getNamespace(),
            w.getMetadata().getName(), e);
      }
    }
  }

  /** Whether the Workflow is being deleted: a finalizer (the operator's) holds it, and it takes no new instances. */
  public static boolean isBeingDeleted(Workflow workflow) {
    return workflow.getMetadata().getDeletionTimestamp() != null;
  }

  /** Whether deleting the Workflow fails its unfinished instances at once ({@code on-delete: fail-running}). */
  public static boolean failsRunningOnDelete(Workflow workflow) {
    Map<String, String> annotations = workflow.getMetadata().getAnnotations();
    return annotations != null && annotations.get(ON_DELETE) != null
        && FAIL_RUNNING.equals(annotations.get(ON_DELETE).trim());
  }

  public boolean watches(String namespace) {
    return namespaces.isEmpty() || namespaces.contains(namespace);
  }

  /**
   * The Workflow as it is now: from the watch's cache, or straight from the API server when the watch has not seen
   * it yet (a Workflow created a moment ago).
   */
  public Optional<Workflow> find(String namespace, String name) {
    if (!watches(namespace)) {
      return Optional.empty();
    }
    String key = namespace + "/" + name;
    for (SharedIndexInformer<Workflow> informer : informers) {
      Workflow cached = informer.getStore().getByKey(key);
      if (cached != null) {
        return Optional.of(cached);
      }
    }
    try {
      return Optional.ofNullable(client.resources(Workflow.class).inNamespace(namespace).withName(name).get());
    } catch (KubernetesClientException e) {
      LOG.warn("Reading Workflow {} from the API server failed: {}", key, e.getMessage());
      return Optional.empty();
    }
  }

  /** Every Workflow in the watched namespaces, as the watch has them now (the web UI's list). */
  public List<Workflow> all() {
    List<Workflow> all = new ArrayList<>();
    for (SharedIndexInformer<Workflow> informer : informers) {
      all.addAll(informer.getStore().list());
    }
    return all;
  }

  /** Names of the Workflows in the watched namespaces (queues are named by workflow name only). */
  public Set<String> names() {
    Set<String> names = new HashSet<>();
    for (SharedIndexInformer<Workflow> informer : informers) {
      for (Workflow w : informer.getStore().list()) {
        names.add(w.getMetadata().getName());
      }
    }
    return names;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
  }
}
