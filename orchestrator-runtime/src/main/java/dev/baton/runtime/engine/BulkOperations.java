package dev.baton.runtime.engine;

import dev.baton.api.json.Json;
import dev.baton.httpapi.InstanceQuery;
import dev.baton.httpapi.OperationDocument;
import dev.baton.httpapi.OperationRequest;
import dev.baton.runtime.core.InstanceStatus;
import dev.baton.runtime.core.RandomIds;
import dev.baton.runtime.store.Actor;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.OperationStore;
import dev.baton.runtime.store.OperationStore.Operation;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bulk operations (docs/design.md#interfaces, {@code POST /api/v1/operations}): cancel, retry or signal every instance
 * a search finds. An operation is stored with the search and its creation time (instances started later are not part
 * of it), then worked a page at a time ({@link #PAGE} instances, newest first) by whichever runtime holds its lease:
 * each instance is acted on in a transaction of its own, as one request for it would be (its audit names the
 * operation's creator and the operation), and the operation's cursor moves past it, so a restart carries on from the
 * next one. One page per round of {@link #run}, paced by its period, so a large operation never takes the database
 * from the step loop.
 */
public final class BulkOperations implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(BulkOperations.class);

  /** Instances acted on per round. */
  static final int PAGE = 50;
  /** How long a runtime holds an operation while it works a page; another may take it once the lease lapses. */
  static final Duration LEASE = Duration.ofSeconds(30);

  private final Database database;
  private final InstanceStore instances;
  private final OperationStore operations;
  private final InstanceService service;
  private final Clock clock;

  public BulkOperations(Database database, InstanceStore instances, OperationStore operations,
      InstanceService service, Clock clock) {
    this.database = database;
    this.instances = instances;
    this.operations = operations;
    this.service = service;
    this.clock = clock;
  }

  /**
   * Creates an operation (or, for a dry run, only counts what it would act on).
   *
   * @param actor who asked: the operation's creator, and the user of every action it takes
   */
  public OperationDocument create(OperationRequest request, Actor actor) throws SQLException {
    Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
    InstanceQuery q = request.query();
    Instant upto = q.createdBefore() != null && q.createdBefore().isBefore(now) ? q.createdBefore() : now;
    InstanceStore.Search search = search(request.filter(), upto, null, null, 1);
    if (request.dryRun()) {
      long matched = database.inTransaction(c -> instances.countMatching(c, search));
      return new OperationDocument(null, request.action(), request.filter(), OperationDocument.DRY_RUN, matched, 0, 0,
          null, null, null, null);
    }
    Operation op = database.inTransaction(c -> {
      Operation created = new Operation(RandomIds.next(), request.action(), request.filter(), request.compensate(),
          request.signal(), request.body() == null ? null : Json.write(request.body()), upto,
          OperationDocument.RUNNING, instances.countMatching(c, search), 0, 0, null, null, null, actor.user(), now,
          null);
      operations.create(c, created);
      return created;
    });
    LOG.info("Bulk operation {} by {}: {} of {} instances ({})", op.id(), actor.user(), op.action(), op.matched(),
        op.filter());
    return document(op);
  }

  public Optional<OperationDocument> find(UUID id) throws SQLException {
    return database.inTransaction(c -> operations.find(c, id)).map(BulkOperations::document);
  }

  /** At most {@code limit} of the latest operations, newest first (the UI's list). */
  public List<OperationDocument> recent(int limit) throws SQLException {
    return database.inTransaction(c -> operations.recent(c, limit)).stream().map(BulkOperations::document).toList();
  }

  /** One round: a page of the oldest operation no runtime holds. */
  @Override
  public void run() {
    try {
      Optional<Operation> leased = database.inTransaction(c -> operations.lease(c, LEASE));
      if (leased.isPresent()) {
        page(leased.get());
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn("A round of bulk operations failed; the next round takes it up again: {}", e.toString());
    }
  }

  private void page(Operation op) throws SQLException {
    List<InstanceRecord> page = database.inTransaction(c -> instances.search(c,
        search(op.filter(), op.upto(), op.cursorAt(), op.cursorId(), PAGE)));
    Actor actor = new Actor(op.createdBy(), "bulk operation " + op.id());
    for (InstanceRecord instance : page) {
      InstanceService.Result result = act(op, instance.id(), actor);
      String failure = result instanceof InstanceService.Result.Conflict conflict
          ? "instance " + instance.id() + ": " + conflict.reason()
          : result instanceof InstanceService.Result.NotFound ? "instance " + instance.id() + " no longer exists"
          : null;
      database.inTransaction(c -> {
        operations.progress(c, op.id(), failure != null, failure, instance.createdAt(), instance.id());
        return null;
      });
    }
    database.inTransaction(c -> {
      if (page.size() < PAGE) {
        operations.finish(c, op.id());
      } else {
        operations.release(c, op.id()); // the next round, here or on another runtime, takes the next page
      }
      return null;
    });
    if (page.size() < PAGE) {
      LOG.info("Bulk operation {} done", op.id());
    }
  }

  private InstanceService.Result act(Operation op, UUID id, Actor actor) throws SQLException {
    return switch (op.action()) {
      case "cancel" -> service.cancel(id, op.compensate(), actor);
      case "retry" -> service.retry(id, actor);
      // Keyed per operation and instance: a page acted on again after a crash stores the signal once.
      case "signal" -> service.signal(id, op.signal(), op.bodyJson() == null ? "null" : op.bodyJson(),
          "bulk:" + op.id() + ":" + id, actor);
      default -> throw new IllegalStateException("unknown action " + op.action());
    };
  }

  /** The stored search of an operation, from where it stopped, up to its creation. */
  private static InstanceStore.Search search(java.util.Map<String, String> filter, Instant upto, Instant cursorAt,
      UUID cursorId, int limit) {
    InstanceQuery q = InstanceQuery.parse(filter.keySet(), filter::get);
    return new InstanceStore.Search(q.namespace(), q.workflow(),
        q.status() == null ? null : InstanceStatus.valueOf(q.status()), q.businessKeyPrefix(), q.step(),
        q.errorCode(), q.createdAfter(), upto, cursorAt, cursorId, limit);
  }

  private static OperationDocument document(Operation op) {
    return new OperationDocument(op.id().toString(), op.action(), op.filter(), op.state(), op.matched(), op.done(),
        op.failed(), op.lastFailure(), op.createdBy(), op.createdAt(), op.finishedAt());
  }
}
