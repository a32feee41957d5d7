package dev.baton.runtime.definitions;

import dev.baton.contract.topology.BindingSpec;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.DefinitionStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which revisions of each Workflow still have unfinished instances, and the result bindings they need
 * ({@link ResultRoutes}), refreshed periodically from the database and served at {@code GET /api/v1/routes} for the
 * operator, which keeps them bound while any instance of the revision runs. Every replica refreshes its own table
 * from the shared database, so any of them answers the same.
 */
public final class RouteTable implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(RouteTable.class);
  private static final String ACTIVE_REVISIONS =
      "SELECT DISTINCT namespace, workflow, revision FROM workflow_instance WHERE finished_at IS NULL";

  private final Database database;
  private final DefinitionStore definitions;
  /** A revision never changes, so its bindings are computed once; a spec that no longer loads has none. */
  private final ConcurrentMap<Revision, List<BindingSpec>> byRevision = new ConcurrentHashMap<>();
  private volatile List<Routes> current;

  public RouteTable(Database database, DefinitionStore definitions) {
    this.database = database;
    this.definitions = definitions;
  }

  /** One Workflow's revisions with unfinished instances, and the union of their result bindings. */
  public record Routes(String namespace, String workflow, Set<Integer> revisions, Set<BindingSpec> bindings) {}

  /** The routes of the last refresh; empty before the first one succeeded (nothing is known yet). */
  public Optional<List<Routes>> current() {
    return Optional.ofNullable(current);
  }

  @Override
  public void run() {
    try {
      current = database.inTransaction(this::read);
    } catch (SQLException | RuntimeException e) {
      LOG.debug("Refreshing the result routes failed (the last ones stand): {}", e.toString());
    }
  }

  private List<Routes> read(Connection c) throws SQLException {
    Map<String, Routes> byWorkflow = new TreeMap<>();
    for (Revision r : activeRevisions(c)) {
      Routes routes = byWorkflow.computeIfAbsent(r.namespace() + "/" + r.workflow(),
          k -> new Routes(r.namespace(), r.workflow(), new TreeSet<>(), new LinkedHashSet<>()));
      routes.revisions().add(r.revision());
      routes.bindings().addAll(bindings(c, r));
    }
    return List.copyOf(byWorkflow.values());
  }

  private List<Revision> activeRevisions(Connection c) throws SQLException {
    List<Revision> revisions = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(ACTIVE_REVISIONS); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        revisions.add(new Revision(rs.getString(1), rs.getString(2), rs.getInt(3)));
      }
    }
    return revisions;
  }

  private List<BindingSpec> bindings(Connection c, Revision r) throws SQLException {
    List<BindingSpec> known = byRevision.get(r);
    if (known != null) {
      return known;
    }
    List<BindingSpec> computed;
    try {
      computed = definitions.loadSpec(c, r.namespace(), r.workflow(), r.revision())
          .map(json -> ResultRoutes.of(r.workflow(), SpecCodec.parse(json))).orElse(List.of());
    } catch (RuntimeException e) {
      // Its instances cannot go on anyway; the others' routes must still be published.
      LOG.warn("Revision {} of Workflow {}/{} no longer loads, so its result routes are not published: {}",
          r.revision(), r.namespace(), r.workflow(), e.toString());
      computed = List.of();
    }
    byRevision.putIfAbsent(r, computed);
    return computed;
  }

  private record Revision(String namespace, String workflow, int revision) {}
}
