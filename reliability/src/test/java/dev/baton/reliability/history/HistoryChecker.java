package dev.baton.reliability.history;

import dev.baton.reliability.history.History.Effect;
import dev.baton.reliability.history.History.Instance;
import dev.baton.reliability.history.History.OutboxRow;
import dev.baton.reliability.history.History.StepAttempt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Checks a run's {@link History} against the promise: if a step fails the earlier ones are undone, and no step is
 * lost or applied twice — at the time boundaries too. Pure: it reads the history it is given and nothing else.
 *
 * <ol type="a">
 *   <li>every accepted start became an instance that ended (SUCCEEDED, FAILED, COMPENSATED or CANCELLED), within
 *       {@code bound} of its creation;
 *   <li>no (instance, step, action, attempt) has two effects; and a step's forward effect appears more than once in
 *       an instance only for attempts the runtime re-sent: each earlier attempt has its row, TIMED_OUT, and a later
 *       attempt's row follows it;
 *   <li>every forward effect of a step is older than every compensation effect of that step;
 *   <li>a COMPENSATED instance, or a CANCELLED one whose cancel asked to compensate, has a compensation effect for
 *       every step with a forward effect that declares {@code compensate};
 *   <li>no outbox row belongs to an ended instance;
 *   <li>no step lost: every task attempt (or compensation) the runtime recorded as SUCCEEDED has its effect in the
 *       ledger — the worker answers only after the effect committed.
 * </ol>
 */
public final class HistoryChecker {

  private static final String COMPENSATE = "/compensate";
  private final Duration bound;

  /** @param bound how long an instance may take from its start to its end in this run */
  public HistoryChecker(Duration bound) {
    this.bound = bound;
  }

  public List<Violation> check(History h) {
    List<Violation> found = new ArrayList<>();
    Map<String, Instance> byKey = h.instances().stream()
        .collect(Collectors.toMap(Instance::businessKey, i -> i, (a, b) -> a));
    Map<String, List<Effect>> effects = h.effects().stream().collect(Collectors.groupingBy(Effect::instanceId));
    Map<String, List<StepAttempt>> steps = h.steps().stream().collect(Collectors.groupingBy(StepAttempt::instanceId));
    Map<String, List<OutboxRow>> outbox = h.outbox().stream().filter(o -> o.instanceId() != null)
        .collect(Collectors.groupingBy(OutboxRow::instanceId));
    for (String key : h.acceptedKeys()) {
      if (!byKey.containsKey(key)) {
        found.add(new Violation(Rule.ENDED, "-", key, "the API accepted its start, the database has no instance"));
      }
    }
    for (Instance i : h.instances()) {
      List<Effect> mine = effects.getOrDefault(i.id(), List.of());
      ended(i, found);
      once(i, mine, steps.getOrDefault(i.id(), List.of()), found);
      List<StepAttempt> rows = steps.getOrDefault(i.id(), List.of());
      notAfterCompensation(i, mine, rows, found);
      undone(i, mine, rows, found);
      outboxEmpty(i, outbox.getOrDefault(i.id(), List.of()), found);
      applied(i, mine, steps.getOrDefault(i.id(), List.of()), found);
    }
    return found;
  }

  private void ended(Instance i, List<Violation> found) {
    if (!i.ended()) {
      found.add(new Violation(Rule.ENDED, i.id(), i.businessKey(), "status " + i.status() + ", finished "
          + i.finishedAt() + ", created " + i.createdAt()));
    } else if (Duration.between(i.createdAt(), i.finishedAt()).compareTo(bound) > 0) {
      found.add(new Violation(Rule.ENDED, i.id(), i.businessKey(), "ended " + i.status() + " after "
          + Duration.between(i.createdAt(), i.finishedAt()) + ", over the bound " + bound));
    }
  }

  private static void once(Instance i, List<Effect> mine, List<StepAttempt> attempts, List<Violation> found) {
    mine.stream().collect(Collectors.groupingBy(e -> e.step() + " " + e.action() + " attempt " + e.attempt()))
        .forEach((what, same) -> {
          if (same.size() > 1) {
            found.add(new Violation(Rule.ONCE, i.id(), i.businessKey(), same.size() + " effects of " + what + ": "
                + describe(same)));
          }
        });
    forward(i, mine).stream().collect(Collectors.groupingBy(Effect::step)).forEach((step, applied) -> {
      List<Integer> attemptsApplied = applied.stream().map(Effect::attempt).distinct().sorted().toList();
      if (attemptsApplied.size() < 2) {
        return;
      }
      int last = attemptsApplied.get(attemptsApplied.size() - 1);
      for (int a : attemptsApplied.subList(0, attemptsApplied.size() - 1)) {
        StepAttempt row = row(attempts, step, a);
        boolean resent = row != null && "TIMED_OUT".equals(row.status()) && row(attempts, step, a + 1) != null;
        if (!resent) {
          found.add(new Violation(Rule.ONCE, i.id(), i.businessKey(), "step " + step + " applied in attempts "
              + attemptsApplied + " but attempt " + a + " was not re-sent after a timeout (its row: "
              + (row == null ? "none" : row.status()) + ", attempt " + (a + 1) + ": "
              + (row(attempts, step, a + 1) == null ? "none" : "present") + ", last applied " + last + "): "
              + describe(applied) + "; the step's attempts: " + rowsOf(attempts, step)));
        }
      }
    });
  }

  private static void notAfterCompensation(Instance i, List<Effect> mine, List<StepAttempt> rows,
      List<Violation> found) {
    Map<String, List<Effect>> undo = compensation(i, mine).stream().collect(Collectors.groupingBy(Effect::step));
    for (Effect e : forward(i, mine)) {
      for (Effect c : undo.getOrDefault(e.step(), List.of())) {
        if (!e.at().isBefore(c.at())) {
          found.add(new Violation(Rule.NOT_AFTER_COMPENSATION, i.id(), i.businessKey(), "forward effect "
              + describe(List.of(e)) + " at or after its compensation " + describe(List.of(c)) + " (by "
              + Duration.between(c.at(), e.at()).toMillis() + " ms; the forward command's deadline " + e.deadline()
              + "); the step's attempts: " + rowsOf(rows, e.step())));
        }
      }
    }
  }

  private static void undone(Instance i, List<Effect> mine, List<StepAttempt> rows, List<Violation> found) {
    boolean mustUndo = "COMPENSATED".equals(i.status()) || "CANCELLED".equals(i.status()) && i.cancelCompensate();
    if (!mustUndo) {
      return;
    }
    List<String> undoneSteps = compensation(i, mine).stream().map(Effect::step).toList();
    forward(i, mine).stream().filter(e -> i.compensations().containsKey(e.step()))
        .filter(e -> !undoneSteps.contains(e.step()))
        .collect(Collectors.groupingBy(Effect::step)).forEach((step, applied) -> found.add(new Violation(
            Rule.UNDONE, i.id(), i.businessKey(), "ended " + i.status() + (i.cancelCompensate() ? " (cancel with "
                + "compensate)" : "") + " but step " + step + " applied " + describe(applied) + " and was never "
                + "undone by " + i.compensations().get(step) + "; the step's attempts: " + rowsOf(rows, step)
                + "; the instance's: " + rows)));
  }

  private static void outboxEmpty(Instance i, List<OutboxRow> rows, List<Violation> found) {
    if (i.ended() && !rows.isEmpty()) {
      found.add(new Violation(Rule.OUTBOX_EMPTY, i.id(), i.businessKey(), "ended " + i.status() + " at "
          + i.finishedAt() + " with " + rows.size() + " outbox row(s): " + rows.stream()
              .map(o -> "#" + o.id() + " " + o.routingKey() + " written " + o.createdAt()).toList()));
    }
  }

  private static void applied(Instance i, List<Effect> mine, List<StepAttempt> attempts, List<Violation> found) {
    for (StepAttempt a : attempts) {
      if (!"task".equals(a.kind()) || !"SUCCEEDED".equals(a.status())) {
        continue;
      }
      String step = a.name().endsWith(COMPENSATE) ? a.name().substring(0, a.name().length() - COMPENSATE.length())
          : a.name();
      boolean recorded = mine.stream().anyMatch(e -> e.step().equals(step) && e.action().equals(a.action())
          && e.attempt() == a.attempt());
      if (!recorded) {
        found.add(new Violation(Rule.APPLIED, i.id(), i.businessKey(), "attempt " + a.attempt() + " of " + a.name()
            + " (" + a.action() + ") SUCCEEDED at " + a.finishedAt() + " without its effect; effects of the step: "
            + describe(mine.stream().filter(e -> e.step().equals(step)).toList())));
      }
    }
  }

  /** The effects of forward commands: any action that is not its step's compensating command. */
  private static List<Effect> forward(Instance i, List<Effect> mine) {
    return mine.stream().filter(e -> !e.action().equals(i.compensations().get(e.step()))).toList();
  }

  private static List<Effect> compensation(Instance i, List<Effect> mine) {
    return mine.stream().filter(e -> e.action().equals(i.compensations().get(e.step()))).toList();
  }

  /** The attempts of {@code step} and of its compensation. */
  private static List<StepAttempt> rowsOf(List<StepAttempt> rows, String step) {
    return rows.stream().filter(r -> r.name().equals(step) || r.name().equals(step + COMPENSATE)).toList();
  }

  private static StepAttempt row(List<StepAttempt> attempts, String step, int attempt) {
    return attempts.stream().filter(s -> s.name().equals(step) && s.attempt() == attempt).findFirst().orElse(null);
  }

  private static String describe(List<Effect> effects) {
    return effects.stream().sorted(Comparator.comparing(Effect::at))
        .map(e -> e.action() + "#" + e.attempt() + " at " + e.at() + " (message " + e.messageId() + ")")
        .collect(Collectors.joining(", "));
  }
}
