package dev.baton.runtime.store;

import dev.baton.runtime.core.InstanceStatus;
import dev.baton.runtime.core.Phase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * {@code instance_link}: which instance each child workflow step started (docs/design.md#workflow-language, child
 * workflow), read with the child's status.
 */
public final class LinkStore {

  /**
   * A child instance as its parent sees it.
   *
   * @param parentStep the name of the parent's step row that started it
   * @param parentAttempt the attempt of that step it answers
   * @param lastErrorJson its last error, or null
   */
  public record Child(UUID id, UUID parentId, String parentStep, int parentAttempt, String workflow,
      InstanceStatus status, Phase phase, String lastErrorJson) {}

  private static final String INSERT = "INSERT INTO instance_link (child_id, parent_id, parent_step, parent_attempt)"
      + " VALUES (?, ?, ?, ?)";
  private static final String ATTEMPT = "UPDATE instance_link SET parent_attempt = ? WHERE child_id = ?";
  private static final String COLUMNS = "l.child_id, l.parent_id, l.parent_step, l.parent_attempt, c.workflow,"
      + " c.status, c.phase, c.last_error::text AS last_error";
  private static final String CHILDREN = "SELECT " + COLUMNS + " FROM instance_link l"
      + " JOIN workflow_instance c ON c.id = l.child_id WHERE l.parent_id = ? ORDER BY l.child_id";
  private static final String PARENT = "SELECT " + COLUMNS + " FROM instance_link l"
      + " JOIN workflow_instance c ON c.id = l.child_id WHERE l.child_id = ?";
  private static final String PARENTS = "SELECT DISTINCT parent_id FROM instance_link WHERE child_id = ANY (?)";
  /**
   * Parents a lost wake-up left waiting (the runtime stopped between a commit and the work it asked for): a child step
   * in flight whose child has ended, or that has no child (it could not be started), or a compensation of one whose
   * child has not been told; a child still going whose parent's step has ended (it is to be cancelled); and a parent
   * undoing its steps that waits for nothing (no step in flight, no child still going): it was waiting for a child
   * to end before undoing its own older steps.
   */
  private static final String NEEDING_ATTENTION = "(SELECT DISTINCT s.instance_id FROM instance_step s"
      + " LEFT JOIN instance_link l ON l.parent_id = s.instance_id"
      + "   AND l.parent_step = regexp_replace(s.name, '/compensate$', '')"
      + " LEFT JOIN workflow_instance c ON c.id = l.child_id"
      + " WHERE s.kind = 'workflow' AND s.status = 'RUNNING'"
      + "   AND (c.id IS NULL OR c.status NOT IN ('RUNNING', 'COMPENSATING')) LIMIT ?)"
      + " UNION (SELECT l.parent_id FROM workflow_instance c JOIN instance_link l ON l.child_id = c.id"
      + " WHERE c.status IN ('RUNNING', 'COMPENSATING') AND NOT EXISTS (SELECT 1 FROM instance_step s"
      + "   WHERE s.instance_id = l.parent_id AND s.name IN (l.parent_step, l.parent_step || '/compensate')"
      + "   AND s.status = 'RUNNING') LIMIT ?)"
      + " UNION (SELECT p.id FROM workflow_instance p WHERE p.status = 'COMPENSATING'"
      + "   AND EXISTS (SELECT 1 FROM instance_link l WHERE l.parent_id = p.id)"
      + "   AND NOT EXISTS (SELECT 1 FROM instance_step s WHERE s.instance_id = p.id AND s.status = 'RUNNING')"
      + "   AND NOT EXISTS (SELECT 1 FROM instance_link l JOIN workflow_instance c ON c.id = l.child_id"
      + "     WHERE l.parent_id = p.id AND c.status IN ('RUNNING', 'COMPENSATING')) LIMIT ?)";

  public void link(Connection c, UUID child, UUID parent, String parentStep, int parentAttempt) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setObject(1, child);
      ps.setObject(2, parent);
      ps.setString(3, parentStep);
      ps.setInt(4, parentAttempt);
      ps.executeUpdate();
    }
  }

  /** The child now answers this attempt of its parent's step (a retry of the step retried it). */
  public void answerAttempt(Connection c, UUID child, int parentAttempt) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(ATTEMPT)) {
      ps.setInt(1, parentAttempt);
      ps.setObject(2, child);
      ps.executeUpdate();
    }
  }

  /** The instances the parent's child workflow steps started, as they stand. */
  public List<Child> childrenOf(Connection c, UUID parent) throws SQLException {
    List<Child> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(CHILDREN)) {
      ps.setObject(1, parent);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(child(rs));
        }
      }
    }
    return out;
  }

  /** The link of a child instance to its parent; empty for an instance no step started. */
  public Optional<Child> parentOf(Connection c, UUID child) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PARENT)) {
      ps.setObject(1, child);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(child(rs)) : Optional.empty();
      }
    }
  }

  /** The parents of those of the instances that are children. */
  public Set<UUID> parentsOf(Connection c, Collection<UUID> children) throws SQLException {
    Set<UUID> parents = new LinkedHashSet<>();
    if (children.isEmpty()) {
      return parents;
    }
    try (PreparedStatement ps = c.prepareStatement(PARENTS)) {
      ps.setArray(1, c.createArrayOf("uuid", children.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          parents.add(rs.getObject(1, UUID.class));
        }
      }
    }
    return parents;
  }

  /** Up to {@code limit} parents (of each kind) whose child steps need a look (see the query). */
  public Set<UUID> needingAttention(Connection c, int limit) throws SQLException {
    Set<UUID> parents = new LinkedHashSet<>();
    try (PreparedStatement ps = c.prepareStatement(NEEDING_ATTENTION)) {
      ps.setInt(1, limit);
      ps.setInt(2, limit);
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          parents.add(rs.getObject(1, UUID.class));
        }
      }
    }
    return parents;
  }

  /** Children by the name of their parent's step row. */
  public static Map<String, Child> byStep(List<Child> children) {
    Map<String, Child> out = new HashMap<>();
    children.forEach(ch -> out.put(ch.parentStep(), ch));
    return out;
  }

  private static Child child(ResultSet rs) throws SQLException {
    return new Child(rs.getObject("child_id", UUID.class), rs.getObject("parent_id", UUID.class),
        rs.getString("parent_step"), rs.getInt("parent_attempt"), rs.getString("workflow"),
        InstanceStatus.valueOf(rs.getString("status")), Phase.valueOf(rs.getString("phase")),
        rs.getString("last_error"));
  }
}
