package dev.baton.runtime.definitions;

import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.store.DefinitionStore;
import dev.baton.workflow.WorkflowDefinition;
import dev.baton.workflow.WorkflowParser;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Workflow definitions by revision. A revision never changes once written, so both maps only grow (one entry per
 * distinct spec) and the hot path reads a definition without touching the database after the first time.
 */
public final class DefinitionCatalog {

  private final DefinitionStore store;
  private final ConcurrentMap<RevisionKey, WorkflowDefinition> byRevision = new ConcurrentHashMap<>();
  private final ConcurrentMap<HashKey, Integer> revisionByHash = new ConcurrentHashMap<>();
  private final ConcurrentMap<NameKey, SpecRevision> lastSpec = new ConcurrentHashMap<>();

  public DefinitionCatalog(DefinitionStore store) {
    this.store = store;
  }

  /** The definition an instance is pinned to. */
  public WorkflowDefinition pinned(Connection c, String namespace, String name, int revision) throws SQLException {
    RevisionKey key = new RevisionKey(namespace, name, revision);
    WorkflowDefinition known = byRevision.get(key);
    if (known != null) {
      return known;
    }
    DefinitionStore.Spec spec = store.load(c, namespace, name, revision).orElseThrow(() -> new IllegalStateException(
        "workflow " + namespace + "/" + name + " has no revision " + revision + " in the database"));
    WorkflowDefinition d = WorkflowParser.runnable(namespace, name, revision, SpecCodec.parse(spec.json()));
    if (!spec.uncommitted()) { // a revision this transaction wrote is remembered once another one reads it
      byRevision.putIfAbsent(key, d);
    }
    return d;
  }

  /**
   * The revision of the spec as it is now, written if it is new. The spec is checked first, so a spec the runtime
   * cannot follow is never stored.
   *
   * @throws IllegalArgumentException when the spec cannot be run
   */
  public WorkflowDefinition current(Connection c, String namespace, String name, WorkflowSpec spec)
      throws SQLException {
    // The watch hands out the same spec object until the Workflow changes: then its revision is known without
    // checking, serialising and hashing the spec again on every start.
    SpecRevision last = lastSpec.get(new NameKey(namespace, name));
    if (last != null && last.spec() == spec) {
      return pinned(c, namespace, name, last.revision());
    }
    WorkflowParser.runnable(namespace, name, 0, spec);
    String json = SpecCodec.canonicalJson(spec);
    HashKey hashKey = new HashKey(namespace, name, SpecCodec.hash(json));
    Integer known = revisionByHash.get(hashKey);
    if (known != null) {
      lastSpec.put(new NameKey(namespace, name), new SpecRevision(spec, known));
      return pinned(c, namespace, name, known);
    }
    DefinitionStore.Revision revision = store.ensureRevision(c, namespace, name, json, hashKey.hash());
    if (revision.uncommitted()) {
      // Not remembered: this transaction (this call, or an earlier start of the same batch) wrote it and may still
      // roll back; the number would then go to another spec, and every start would name a revision that is not there.
      return WorkflowParser.runnable(namespace, name, revision.number(), spec);
    }
    revisionByHash.putIfAbsent(hashKey, revision.number());
    lastSpec.put(new NameKey(namespace, name), new SpecRevision(spec, revision.number()));
    return pinned(c, namespace, name, revision.number());
  }


  private record RevisionKey(String namespace, String name, int revision) {}

  private record NameKey(String namespace, String name) {}

  /** A spec object (compared by identity) and the revision it was found to be. */
  private record SpecRevision(WorkflowSpec spec, int revision) {}

  private record HashKey(String namespace, String name, String hash) {}
}
