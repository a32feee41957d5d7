package dev.baton.runtime.http;

import dev.baton.httpapi.InstanceDocument;
import dev.baton.runtime.store.AuditStore;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.StepStore;
import java.sql.SQLException;
import java.util.Optional;
import java.util.UUID;

/**
 * The instance document of {@code GET /api/v1/instances/{id}} (docs/design.md#interfaces), read in one transaction.
 * The API answers with it and the web UI draws from it: one contract, whatever the store looks like.
 */
public final class InstanceDocuments {

  private final Database database;
  private final InstanceStore instances;
  private final StepStore steps;
  private final AuditStore audit = new AuditStore();

  public InstanceDocuments(Database database, InstanceStore instances, StepStore steps) {
    this.database = database;
    this.instances = instances;
    this.steps = steps;
  }

  /**
   * The instance with every dispatch of its steps and compensations and its audit, or empty when there is no such
   * instance.
   */
  public Optional<InstanceDocument> detail(UUID id) throws SQLException {
    return database.inTransaction(c -> {
      Optional<InstanceRecord> found = instances.find(c, id);
      if (found.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(InstanceJson.detail(found.get(), steps.listFor(c, id), audit.listFor(c, id)));
    });
  }
}
