package dev.baton.runtime.definitions;

import dev.baton.api.v1alpha1.Workflow;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deleting a Workflow annotated {@code baton.dev/on-delete: fail-running} fails its unfinished instances at once, with
 * reason {@link #WORKFLOW_DELETED} (docs/design.md#runtime-semantics). The operator's finalizer holds the deleted
 * Workflow while the runtime lists unfinished instances of it, so the watch sees it, updated with
 * {@code metadata.deletionTimestamp}; without the annotation its instances run to their end and the finalizer waits.
 * Either way the result routes the operator reads are refreshed as soon as the deletion is seen.
 *
 * <p>Passes run on a thread of their own (the watch does not wait for thousands of transactions), one at a time per
 * Workflow. A pass that failed an instance, or could not fail one, is followed by another {@link #AGAIN} later: it
 * catches a start that raced the deletion and retries what could not be failed; a pass that finds nothing to fail
 * ends it. Every replica does the same: each instance is failed on its locked row, so a second replica finds it
 * FAILED and leaves it.
 */
public final class WorkflowDeletions implements WorkflowWatcher.Listener, AutoCloseable {

  /** The error code of the instances a deletion with {@code fail-running} failed. */
  public static final String WORKFLOW_DELETED = "WorkflowDeleted";
  static final Duration AGAIN = Duration.ofSeconds(5);
  private static final Logger LOG = LoggerFactory.getLogger(WorkflowDeletions.class);

  /** Fails the unfinished instances of a Workflow (the engine's {@code InstanceService.failRunning}). */
  @FunctionalInterface
  public interface FailRunning {
    /** @return how many it failed */
    long fail(String namespace, String workflow, String errorCode, String reason) throws SQLException;
  }

  private final FailRunning failRunning;
  private final Runnable refreshRoutes;
  /** The uids of the Workflows seen being deleted. */
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  /** The Workflows being deleted with {@code fail-running}, by uid, as the watch last saw them. */
  private final ConcurrentMap<String, Workflow> deleting = new ConcurrentHashMap<>();
  /** The uids with a pass scheduled or running. */
  private final Set<String> passing = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService passes = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "baton-runtime-deletions");
    t.setDaemon(true);
    return t;
  });

  /**
   * @param refreshRoutes reads the result routes again ({@link RouteTable}), on this class's thread: when a Workflow is
   *     first seen being deleted, so that the operator, which waits for {@code /api/v1/routes} to list it no more, is
   *     not answered from a table older than an instance started just before the deletion; and after a pass failed
   *     instances, so that it hears of it without waiting for the periodic refresh
   */
  public WorkflowDeletions(FailRunning failRunning, Runnable refreshRoutes) {
    this.failRunning = failRunning;
    this.refreshRoutes = refreshRoutes;
  }

  @Override
  public void changed(Workflow workflow) {
    String uid = workflow.getMetadata().getUid();
    if (WorkflowWatcher.isBeingDeleted(workflow) && seen.add(uid)) {
      try {
        passes.execute(refreshRoutes);
      } catch (RejectedExecutionException closing) {
        // nothing to refresh for
      }
    }
    if (!WorkflowWatcher.isBeingDeleted(workflow) || !WorkflowWatcher.failsRunningOnDelete(workflow)) {
      deleting.remove(uid);
      return;
    }
    deleting.put(uid, workflow);
    if (passing.add(uid)) {
      schedule(uid, Duration.ZERO);
    }
  }

  @Override
  public void deleted(Workflow workflow) {
    seen.remove(workflow.getMetadata().getUid());
    deleting.remove(workflow.getMetadata().getUid());
  }

  private void schedule(String uid, Duration delay) {
    try {
      passes.schedule(() -> pass(uid), delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closing) {
      passing.remove(uid);
    }
  }

  private void pass(String uid) {
    Workflow workflow = deleting.get(uid);
    if (workflow == null) { // gone, or no longer annotated
      passing.remove(uid);
      return;
    }
    String ns = workflow.getMetadata().getNamespace();
    String name = workflow.getMetadata().getName();
    boolean again;
    try {
      again = failRunning.fail(ns, name, WORKFLOW_DELETED, "Workflow " + ns + "/" + name + " was deleted with "
          + WorkflowWatcher.ON_DELETE + ": " + WorkflowWatcher.FAIL_RUNNING) > 0;
      if (again) {
        refreshRoutes.run();
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Failing the unfinished instances of the deleted Workflow {}/{} did not complete ({}); again in {}s",
          ns, name, e.toString(), AGAIN.toSeconds());
      again = true;
    }
    if (again) {
      schedule(uid, AGAIN);
    } else {
      passing.remove(uid);
    }
  }

  @Override
  public void close() throws InterruptedException {
    passes.shutdownNow();
    passes.awaitTermination(10, TimeUnit.SECONDS);
  }
}
