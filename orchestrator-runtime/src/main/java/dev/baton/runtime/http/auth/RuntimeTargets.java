package dev.baton.runtime.http.auth;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceStore;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Targets} from the runtime's own records: an instance's Workflow from its row (kept: it never changes), a
 * service's WorkerService from the Kubernetes API (kept for seconds).
 */
public final class RuntimeTargets implements Targets {

  private static final Logger LOG = LoggerFactory.getLogger(RuntimeTargets.class);
  /** An instance's Workflow never changes; it is kept as long as there is room. */
  static final Duration WORKFLOW_KEPT = Duration.ofMinutes(10);
  static final Duration OWNERS_KEPT = Duration.ofSeconds(10);

  private final Database database;
  private final InstanceStore instances;
  private final KubernetesClient client;
  private final ExpiringCache<UUID, Target> workflows = new ExpiringCache<>(10_000);
  private final ExpiringCache<String, Optional<Target>> owners = new ExpiringCache<>(1_000);
  private final AtomicBoolean toldCannotRead = new AtomicBoolean();

  public RuntimeTargets(Database database, InstanceStore instances, KubernetesClient client) {
    this.database = database;
    this.instances = instances;
    this.client = client;
  }

  @Override
  public Optional<Target> workflowOf(UUID instance) throws SQLException {
    Target known = workflows.get(instance);
    if (known != null) {
      return Optional.of(known);
    }
    Optional<Target> found = database.inTransaction(c -> instances.workflowOf(c, instance))
        .map(w -> new Target(w.namespace(), w.name()));
    found.ifPresent(t -> workflows.put(instance, t, WORKFLOW_KEPT));
    return found;
  }

  @Override
  public Optional<Target> serviceOwner(String service) {
    Optional<Target> known = owners.get(service);
    if (known != null) {
      return known;
    }
    Optional<Target> owner;
    try {
      owner = ownerAmong(client.resources(WorkerService.class).inAnyNamespace().list().getItems(), service);
    } catch (RuntimeException e) {
      // Not allowed to list WorkerServices (or the API is away): access to the service's dead letters is then
      // asked cluster-wide, which only cluster-wide roles grant. Said once, not per page.
      if (toldCannotRead.compareAndSet(false, true)) {
        LOG.warn("The runtime cannot read WorkerServices ({}): replaying dead letters needs cluster-wide access until"
            + " it can (grant it list on workerservices.baton.dev)", e.getClass().getSimpleName());
      }
      owner = Optional.empty();
    }
    owners.put(service, owner, OWNERS_KEPT);
    return owner;
  }

  /**
   * The WorkerService that holds a service name: the one whose status says it claimed it, else the only one that
   * asks for it; none when several ask and none holds it.
   */
  static Optional<Target> ownerAmong(List<WorkerService> all, String service) {
    List<WorkerService> asking = all.stream().filter(w -> service.equals(w.serviceName())).toList();
    Optional<WorkerService> holder = asking.stream()
        .filter(w -> w.getStatus() != null && service.equals(w.getStatus().getService())).findFirst();
    Optional<WorkerService> chosen = holder.isPresent() ? holder
        : asking.size() == 1 ? Optional.of(asking.get(0)) : Optional.empty();
    return chosen.map(w -> new Target(w.getMetadata().getNamespace(), w.getMetadata().getName()));
  }
}
