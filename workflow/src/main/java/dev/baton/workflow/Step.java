package dev.baton.workflow;

import dev.baton.api.v1alpha1.OnTimeout;
import java.time.Duration;
import java.util.List;

/**
 * One step of a {@link WorkflowDefinition}, of exactly one kind, checked and with its defaults applied. Step names are
 * unique across the whole definition, nested steps included.
 */
public sealed interface Step permits Step.Task, Step.Parallel, Step.Choice, Step.Map, Step.Child, Step.Wait, Step.Delay {

  String name();

  StepKind kind();

  /** The steps directly inside this one (a parallel's branches, a choice's cases and otherwise, a map's), in order. */
  default List<Step> children() {
    return List.of();
  }

  /**
   * A command sent to {@code service}, whose result events are keyed {@code <entity>.<action>.<result>}.
   *
   * @param action the action of the result events; the command unless the spec says otherwise
   * @param compensate the command that undoes the step, or null when it cannot be undone
   * @param timeout how long a dispatch waits for its result; null waits indefinitely
   * @param maxDispatches how many times the command is sent in all (1 unless {@code onTimeout} is Redispatch)
   * @param input the command's input mapped key by key; empty sends the instance input with earlier outputs merged in
   */
  record Task(String name, String service, String command, String action, String compensate, Duration timeout,
      OnTimeout onTimeout, int maxDispatches, java.util.Map<String, Expression> input) implements Step {

    public Task {
      input = java.util.Map.copyOf(input);
    }

    @Override
    public StepKind kind() {
      return StepKind.TASK;
    }

    public boolean isCompensable() {
      return compensate != null;
    }

    /** Whether the command's input is mapped (exactly the mapped object) rather than the instance's merged input. */
    public boolean hasMappedInput() {
      return !input.isEmpty();
    }
  }

  /** Branches (each at least one step) started together; the step ends when all of them have ended. */
  record Parallel(String name, List<List<Step>> branches) implements Step {

    public Parallel {
      branches = branches.stream().map(List::copyOf).toList();
    }

    @Override
    public StepKind kind() {
      return StepKind.PARALLEL;
    }

    @Override
    public List<Step> children() {
      return branches.stream().flatMap(List::stream).toList();
    }
  }

  /** The steps of the first case whose {@code when} holds run; when none holds, those of {@code otherwise} (maybe none). */
  record Choice(String name, List<Case> cases, List<Step> otherwise) implements Step {

    public Choice {
      cases = List.copyOf(cases);
      otherwise = List.copyOf(otherwise);
    }

    @Override
    public StepKind kind() {
      return StepKind.CHOICE;
    }

    @Override
    public List<Step> children() {
      return java.util.stream.Stream.concat(cases.stream().flatMap(c -> c.steps().stream()), otherwise.stream())
          .toList();
    }
  }

  /** One case of a choice: a bool expression and the steps it runs (maybe none). */
  record Case(Expression when, List<Step> steps) {

    public Case {
      steps = List.copyOf(steps);
    }
  }

  /**
   * The same steps once per item of the list {@code items} yields when the map starts (its iterations, named
   * {@code <step>[<index>]}; the steps inside an iteration {@code <inner step>[<index>]}).
   *
   * @param items a CEL value over {@code input} and {@code steps} yielding a list
   * @param maxConcurrency how many iterations run at once; 0 for all
   * @param toleratedFailures how many iterations may fail before the map fails
   * @param steps the steps of one iteration, in order; their expressions also see {@code item} and {@code index}
   */
  record Map(String name, Expression items, int maxConcurrency, int toleratedFailures, List<Step> steps)
      implements Step {

    public Map {
      steps = List.copyOf(steps);
    }

    @Override
    public StepKind kind() {
      return StepKind.MAP;
    }

    @Override
    public List<Step> children() {
      return steps;
    }

    /** The last step of an iteration: its output is the iteration's. */
    public Step last() {
      return steps.get(steps.size() - 1);
    }
  }

  /**
   * Starts an instance of {@code workflow} (same namespace, business key {@code <parent id>/<step>}) and ends when it
   * ends: with its outputs when it succeeded, failed otherwise.
   *
   * @param input the child's input mapped key by key; empty gives it the parent's input with earlier outputs merged
   * @param timeout how long the step waits for the child's end; null waits indefinitely
   */
  record Child(String name, String workflow, java.util.Map<String, Expression> input, Duration timeout)
      implements Step {

    public Child {
      input = java.util.Map.copyOf(input);
    }

    @Override
    public StepKind kind() {
      return StepKind.WORKFLOW;
    }
  }

  /**
   * Ends when the instance receives {@code signal} (its output is the signal's body).
   *
   * @param timeout how long to wait before failing with reason Timeout; null waits indefinitely
   */
  record Wait(String name, String signal, Duration timeout) implements Step {

    @Override
    public StepKind kind() {
      return StepKind.WAIT;
    }
  }

  /** Ends when {@code duration} has passed since it started. */
  record Delay(String name, Duration duration) implements Step {

    @Override
    public StepKind kind() {
      return StepKind.DELAY;
    }
  }
}
