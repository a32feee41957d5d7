package dev.baton.reliability.suite;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.baton.contract.Names;
import dev.baton.reliability.ledger.Ledger;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a scenario's verdict is counted from: the runtime's database (instances and their status, the outbox), the
 * workers' ledger (effects), the vhost's queues (parked and waiting messages) and the starts the API accepted; and
 * which instances a scenario breaks on purpose.
 */
public final class Tally {

  /** @param redispatched step executions beyond the first attempt (a timeout re-dispatch would show here) */
  public record Counts(int accepted, long lost, long appliedTwice, long stuck, long parked, long leftovers,
      long redispatched) {}

  private final String runtimeDbUrl;
  private final Ledger ledger;
  private final Connection amqp;
  /** service → commands of the rig. */
  private final Map<String, List<String>> services;
  /** The rig's Workflows: their orchestrator queues. */
  private final Set<String> workflows;
  /** The business keys whose start the API accepted (the client side of the ledger). */
  private final Set<String> accepted;
  /**
   * Business keys of instances a scenario breaks on purpose (their definition no longer loads, their output is too
   * large): they must end — FAILED, COMPENSATED — not stay RUNNING; the others must succeed.
   */
  private final Set<String> mayFail = ConcurrentHashMap.newKeySet();

  Tally(String runtimeDbUrl, Ledger ledger, Connection amqp, Map<String, List<String>> services,
      Set<String> workflows, Set<String> accepted) {
    this.runtimeDbUrl = runtimeDbUrl;
    this.ledger = ledger;
    this.amqp = amqp;
    this.services = services;
    this.workflows = workflows;
    this.accepted = accepted;
  }

  /** A count from the runtime's database, or -1 while it cannot be read (e.g. being restarted). */
  public long runtimeCount(String sql) {
    try (java.sql.Connection c = DriverManager.getConnection(runtimeDbUrl, "postgres", "");
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      return -1;
    }
  }

  /** The first column of every row of a query on the runtime's database. */
  public List<String> runtimeStrings(String sql) {
    List<String> values = new ArrayList<>();
    try (java.sql.Connection c = DriverManager.getConnection(runtimeDbUrl, "postgres", "");
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return values;
  }

  /** Instances that ended, in any way. */
  public long finished() {
    return runtimeCount("SELECT count(*) FROM workflow_instance WHERE finished_at IS NOT NULL");
  }

  public long succeeded() {
    return runtimeCount("SELECT count(*) FROM workflow_instance WHERE status = 'SUCCEEDED'");
  }

  /**
   * Seconds until an instance completes after {@code before} completions, NaN if none does within the bound. When
   * every accepted instance has completed already (a fast wave can finish before its fault is over) there is nothing
   * to recover to: that counts as progress, and the next wave's drain is what proves the recovery.
   */
  public double secondsUntilProgress(long before, Duration within) {
    long t0 = System.nanoTime();
    return Wait.until(within, () -> {
      long done = succeeded();
      return done > before || done >= accepted.size();
    }) ? (System.nanoTime() - t0) / 1e9 : Double.NaN;
  }

  public long messagesIn(String queue) {
    try (Channel ch = amqp.createChannel()) {
      return ch.messageCount(queue);
    } catch (Exception e) {
      return -1;
    }
  }

  /** Messages in every parking queue of the vhost (commands and the orchestrator's). */
  public long parked() {
    long n = 0;
    for (String w : workflows) {
      n += messagesIn(Names.orchestratorDeadLetterQueue(w));
    }
    for (Map.Entry<String, List<String>> s : services.entrySet()) {
      for (String c : s.getValue()) {
        n += messagesIn(Names.deadLetterQueue(s.getKey(), c));
      }
    }
    return n;
  }

  /** Where the {@link #leftovers()} are, for the notes. */
  public String leftoversDetail() {
    StringBuilder sb = new StringBuilder("outbox " + Math.max(0, runtimeCount("SELECT count(*) FROM outbox")));
    workflows.forEach(w -> sb.append(", ").append(Names.orchestratorQueue(w)).append(' ')
        .append(messagesIn(Names.orchestratorQueue(w))));
    services.forEach((service, commands) -> commands.forEach(c -> {
      long m = messagesIn(Names.consumerQueue(service, c));
      if (m != 0) {
        sb.append(", ").append(Names.consumerQueue(service, c)).append(' ').append(m);
      }
    }));
    return sb.toString();
  }

  /** Commands or events still waiting: outbox rows and messages in command and orchestrator queues. */
  public long leftovers() {
    long n = Math.max(0, runtimeCount("SELECT count(*) FROM outbox"));
    for (String w : workflows) {
      n += messagesIn(Names.orchestratorQueue(w));
    }
    for (Map.Entry<String, List<String>> s : services.entrySet()) {
      for (String c : s.getValue()) {
        n += messagesIn(Names.consumerQueue(s.getKey(), c));
      }
    }
    return n;
  }

  /**
   * The verdict from the ledger and the database: accepted starts missing from the database, or SUCCEEDED without
   * an effect for each step, are lost; a (instance, step, action) with more than one effect is applied twice; an
   * accepted instance not SUCCEEDED after the drain is stuck.
   */
  public Counts counts() {
    Map<String, String> statusByKey = new HashMap<>();
    Map<String, String> idByKey = new HashMap<>();
    try (java.sql.Connection c = DriverManager.getConnection(runtimeDbUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT business_key, status, id FROM workflow_instance")) {
      while (rs.next()) {
        statusByKey.put(rs.getString(1), rs.getString(2));
        idByKey.put(rs.getString(1), rs.getString(3));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    Map<String, Integer> effects = ledger.effectsPerInstance();
    long lost = 0;
    long stuck = 0;
    for (String key : accepted) {
      String status = statusByKey.get(key);
      if (status == null) {
        lost++;
      } else if (mayFail.contains(key)) {
        stuck += "RUNNING".equals(status) || "COMPENSATING".equals(status) ? 1 : 0; // must end, in any way
      } else if (!"SUCCEEDED".equals(status)) {
        stuck++;
      } else if (effects.getOrDefault(idByKey.get(key), 0) < 3) {
        lost++;
      }
    }
    return new Counts(accepted.size(), lost, ledger.appliedTwice(), stuck, parked(), leftovers(),
        runtimeCount("SELECT count(*) FROM instance_step WHERE attempt > 1"));
  }

  /** Marks an instance as broken on purpose: it must end, in any status ({@link #counts()}). */
  public void mayFail(String businessKey) {
    mayFail.add(businessKey);
  }

  /** The instances broken on purpose so far. */
  public Set<String> mayFail() {
    return Collections.unmodifiableSet(mayFail);
  }
}
