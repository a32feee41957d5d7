package dev.baton.runtime.ui;

import dev.baton.runtime.engine.InstanceService;
import dev.baton.runtime.store.Actor;
import java.sql.SQLException;
import java.util.Set;
import java.util.UUID;

/**
 * The UI's buttons on the runtime's own instance service: the code path of {@code POST /api/v1/instances/{id}/…},
 * so a click and an API call cannot behave differently.
 */
public final class InstanceButtons {

  /** How a press ended. */
  sealed interface Outcome {
    record Done() implements Outcome {}

    record NotFound() implements Outcome {}

    /** Not possible now (a 409 in the API), with why. */
    record Refused(String reason) implements Outcome {}
  }

  private final InstanceService service;

  public InstanceButtons(InstanceService service) {
    this.service = service;
  }

  /** What the page offers: cancel with compensation and signals (both in the runtime since its step kinds). */
  InstanceDetailView.Abilities abilities() {
    return new InstanceDetailView.Abilities(true, true);
  }

  Outcome cancel(UUID id, boolean compensate, Actor actor) throws SQLException {
    return outcome(service.cancel(id, compensate, actor));
  }

  Outcome retry(UUID id, Actor actor) throws SQLException {
    return outcome(service.retry(id, actor));
  }

  Outcome signal(UUID id, String signal, String bodyJson, Actor actor) throws SQLException {
    return outcome(service.signal(id, signal, bodyJson, null, actor));
  }

  /** Records a dead-letter replay on the instances whose messages it sent back. */
  void replayed(Set<UUID> instances, Actor actor, String detail) throws SQLException {
    service.recordReplays(instances, actor, detail);
  }

  private static Outcome outcome(InstanceService.Result result) {
    if (result instanceof InstanceService.Result.NotFound) {
      return new Outcome.NotFound();
    }
    if (result instanceof InstanceService.Result.Conflict c) {
      return new Outcome.Refused(c.reason());
    }
    return new Outcome.Done();
  }
}
