package dev.baton.runtime.http.auth;

import java.sql.SQLException;
import java.util.Optional;
import java.util.UUID;

/** Where what a request names lives: the namespaces RBAC is asked about. */
public interface Targets {

  /** A namespaced object: a Workflow, a WorkerService. */
  record Target(String namespace, String name) {}

  /** The Workflow of an instance, or empty when there is no such instance. */
  Optional<Target> workflowOf(UUID instance) throws SQLException;

  /**
   * The WorkerService that provides a service (whose name is in its broker objects' names), or empty when none is
   * known: the runtime's own parking lots, a service whose WorkerService is gone, or WorkerServices the runtime may
   * not read. Access is then asked cluster-wide.
   */
  Optional<Target> serviceOwner(String service);
}
