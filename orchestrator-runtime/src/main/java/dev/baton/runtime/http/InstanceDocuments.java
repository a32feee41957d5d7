package dev.baton.runtime.http;

import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.InstanceLink;
import dev.baton.runtime.store.AuditStore;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.LinkStore;
import dev.baton.runtime.store.StepStore;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The instance document of {@code GET /api/v1/instances/{id}} (docs/design.md#interfaces), read in one transaction.
 * The API answers with it and the web UI draws from it: one contract, whatever the store looks like. It links the
 * instance to its parent and its children (child workflow steps).
 */
public final class InstanceDocuments {

  private final Database database;
  private final InstanceStore instances;
  private final StepStore steps;
  private final AuditStore audit = new AuditStore();
  private final LinkStore links = new LinkStore();

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
      InstanceDocument d = InstanceJson.detail(found.get(), steps.listFor(c, id), audit.listFor(c, id));
      InstanceLink parent = null;
      Optional<LinkStore.Child> link = links.parentOf(c, id);
      if (link.isPresent()) {
        Optional<InstanceRecord> p = instances.find(c, link.get().parentId()); // gone when the purge took it first
        parent = new InstanceLink(link.get().parentStep(), link.get().parentId().toString(),
            p.map(InstanceRecord::workflow).orElse(null), p.map(r -> r.status().name()).orElse(null));
      }
      List<InstanceLink> children = links.childrenOf(c, id).stream().map(ch -> new InstanceLink(ch.parentStep(),
          ch.id().toString(), ch.workflow(), ch.status().name())).toList();
      return Optional.of(d.withLinks(parent, children));
    });
  }
}
