package dev.baton.workflow;

import dev.baton.api.v1alpha1.Bounds;
import dev.baton.api.v1alpha1.BranchSpec;
import dev.baton.api.v1alpha1.CaseSpec;
import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.api.validation.Problem;
import dev.baton.api.validation.Validated;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.Names;
import dev.baton.workflow.schedule.Schedules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one parse of a Workflow spec (docs/design.md#workflow-language): spec → {@link WorkflowDefinition}, or the
 * problems a person must fix. A problem of a step begins with the field and the step it belongs to (for a field of a
 * parallel's branch or a choice's case, the parallel or the choice), {@code spec.steps[2].choice[0].when (step 'route'):
 * ...}. Checks what the schema cannot (or what an API server without schema validation let through): one kind per
 * step, names unique across the whole tree, nesting to
 * {@link Bounds#NESTING} levels, durations, the bounds, and every CEL expression compiled and type-checked, reading only
 * steps that exist. Applies the defaults, here only. The operator adds its own checks of references to other resources;
 * the runtime runs what this returns. Pure.
 */
public final class WorkflowParser {

  /** Sent in all when a task says {@code onTimeout: Redispatch} without {@code maxDispatches}. */
  public static final int DEFAULT_MAX_DISPATCHES = 3;
  /** The most a task may say in {@code maxDispatches} (the schema's maximum). */
  public static final int MAX_DISPATCHES = 100;
  /** RabbitMQ's limit on queue names, in bytes; Workflow names are ASCII. */
  public static final int MAX_QUEUE_NAME = 255;

  private final List<Problem> problems = new ArrayList<>();
  /** Where each step name was first declared, for the duplicate's message. */
  private final Map<String, String> declaredAt = new HashMap<>();
  /** Every expression and where it is (field and step), checked for unknown steps once every name is known. */
  private final Map<String, Expression> expressions = new LinkedHashMap<>();
  private int stepCount;
  /** The map whose steps are being parsed (their expressions also read item and index), or null. */
  private String insideMap;
  /** The map each step inside a map belongs to, and the map each expression inside a map belongs to. */
  private final Map<String, String> stepInMap = new HashMap<>();
  private final Map<String, String> expressionInMap = new HashMap<>();

  private WorkflowParser() {}

  public static Validated<WorkflowDefinition> parse(String namespace, String name, int revision, WorkflowSpec spec) {
    return new WorkflowParser().run(namespace, name, revision, spec);
  }

  /**
   * A spec the runtime is about to run: parsed as the operator parses it, so the runtime never runs what the operator
   * refuses (and runs every kind of step it accepts).
   *
   * @throws IllegalArgumentException naming every problem, when the spec cannot be run
   */
  public static WorkflowDefinition runnable(String namespace, String name, int revision, WorkflowSpec spec) {
    Validated<WorkflowDefinition> parsed = parse(namespace, name, revision, spec);
    if (!parsed.isValid()) {
      throw new IllegalArgumentException(parsed.message());
    }
    return parsed.value();
  }

  private Validated<WorkflowDefinition> run(String namespace, String name, int revision, WorkflowSpec spec) {
    if (spec == null) {
      return Validated.invalid(List.of(Problem.invalid("spec is missing: set spec.entity and spec.steps")));
    }
    Optional<Validated<WorkflowDefinition>> unknown = spec.refusedForUnknownValues();
    if (unknown.isPresent()) {
      return unknown.get(); // the runtime runs none of it: a default standing in would run what was not written
    }
    if (name != null && Names.orchestratorDeadLetterQueue(name).length() > MAX_QUEUE_NAME) {
      invalid("metadata.name is too long for its queue " + Names.orchestratorDeadLetterQueue(name) + " (RabbitMQ allows "
          + MAX_QUEUE_NAME + " characters): choose a shorter name");
    }
    if (!Names.isValidToken(spec.getEntity())) {
      invalid("spec.entity '" + spec.getEntity() + "' is not a valid entity: lowercase letters, digits, '_' and '-', "
          + "no dots (it begins every event routing key)");
    }
    List<StepSpec> specSteps = spec.getSteps() == null ? List.of() : spec.getSteps();
    if (specSteps.isEmpty()) {
      invalid("spec.steps is empty: a Workflow needs at least one step");
    } else if (specSteps.size() > Bounds.STEPS) {
      invalid("spec.steps has " + specSteps.size() + " steps; at most " + Bounds.STEPS + " are allowed");
    }
    List<Step> steps = steps("spec.steps", specSteps, 1);
    if (stepCount > Bounds.ALL_STEPS) {
      invalid("the Workflow has " + stepCount + " steps, nested ones included; at most " + Bounds.ALL_STEPS
          + " are allowed");
    }
    expressions.forEach((field, expression) -> {
      for (String step : expression.referencedSteps()) {
        if (!declaredAt.containsKey(step)) {
          invalid(field + ": '" + expression.text() + "' reads steps." + step + ", but the Workflow has no step '"
              + step + "'");
        } else if (stepInMap.containsKey(step) && !stepInMap.get(step).equals(expressionInMap.get(field))) {
          invalid(field + ": '" + expression.text() + "' reads steps." + step + ", which runs once per item of the map"
              + " '" + stepInMap.get(step) + "': read the map's output, steps['" + stepInMap.get(step)
              + "'].output, a list in item order");
        }
      }
    });
    // Schedules are the Workflow's, not its instances': checked here so a bad one is InvalidSpec, run from the spec.
    problems.addAll(Schedules.parse(spec.getSchedules()).problems());
    OnFailure onFailure = spec.getOnFailure() == null ? OnFailure.Compensate : spec.getOnFailure();
    // The whole instance's deadline: checked as a step's timeout is, the field named.
    Duration timeout = spec.getTimeout() == null ? null : duration("spec.timeout", null, spec.getTimeout());
    return Validated.of(problems,
        () -> new WorkflowDefinition(namespace, name, revision, spec.getEntity(), onFailure, steps, timeout));
  }

  /** The steps of one list at nesting level {@code depth}; those that have problems are left out (the result is then invalid). */
  private List<Step> steps(String field, List<StepSpec> specs, int depth) {
    List<Step> out = new ArrayList<>();
    for (int i = 0; i < specs.size(); i++) {
      StepSpec spec = specs.get(i);
      String at = field + "[" + i + "]";
      if (spec == null) {
        invalid(at + " is empty: a step needs a name and a kind");
        continue;
      }
      stepCount++;
      Step step = step(at, spec, depth);
      if (step != null) {
        out.add(step);
      }
    }
    return out;
  }

  private Step step(String at, StepSpec spec, int depth) {
    int before = problems.size();
    String name = spec.getName();
    if (name == null) {
      invalid(at + ".name is missing: every step needs a name, unique in the whole Workflow");
    } else if (!Names.isValidToken(name)) {
      invalid(of(at + ".name", name) + ": '" + name + "' is not a valid step name: lowercase letters, digits, '_' and"
          + " '-', no dots");
    } else {
      if (insideMap != null) {
        stepInMap.put(name, insideMap);
      }
      String first = declaredAt.putIfAbsent(name, at);
      if (first != null) {
        invalid(of(at + ".name", name) + ": step name '" + name + "' is already used by " + first
            + ": step names must be unique in the whole Workflow, nested steps included");
      }
    }
    List<StepKind> kinds = kinds(spec);
    if (kinds.isEmpty()) {
      invalid(of(at, name) + " has no kind: give it service and command (a task), parallel, choice, map, workflow,"
          + " wait or delay");
      return null;
    }
    if (kinds.size() > 1) {
      invalid(of(at, name) + " has the fields of " + kinds.size() + " kinds (" + String.join(", ",
          kinds.stream().map(StepKind::wireName).toList()) + "): a step is exactly one of task, parallel, choice, map, "
          + "workflow, wait or delay");
      return null;
    }
    StepKind kind = kinds.get(0);
    if (kind != StepKind.TASK) {
      taskFieldsAbsent(at, spec, kind);
    }
    if (kind != StepKind.CHOICE && spec.getOtherwise() != null) {
      invalid(of(at + ".otherwise", name) + " belongs to a choice, and this step is a " + kind.wireName());
    }
    if (kind == StepKind.MAP && insideMap != null) {
      invalid(of(at, name) + ": a map inside the map '" + insideMap + "'; maps do not nest (map over the inner list"
          + " in a child workflow, or flatten the list first)");
      return null;
    }
    if (kind.isGroup() && depth >= Bounds.NESTING) {
      invalid(of(at, name) + ": a " + kind.wireName() + " at nesting level " + depth + "; steps nest at most "
          + Bounds.NESTING + " levels deep (spec.steps is level 1)");
      return null;
    }
    Step step = switch (kind) {
      case TASK -> task(at, spec);
      case PARALLEL -> parallel(at, spec, depth);
      case CHOICE -> choice(at, spec, depth);
      case MAP -> map(at, spec, depth);
      case WORKFLOW -> child(at, spec);
      case WAIT -> waitStep(at, spec);
      case DELAY -> new Step.Delay(name, duration(at + ".delay", name, spec.getDelay()));
    };
    return problems.size() == before ? step : null;
  }

  private static List<StepKind> kinds(StepSpec spec) {
    List<StepKind> kinds = new ArrayList<>();
    if (spec.getService() != null || spec.getCommand() != null) {
      kinds.add(StepKind.TASK);
    }
    if (spec.getParallel() != null) {
      kinds.add(StepKind.PARALLEL);
    }
    if (spec.getChoice() != null) {
      kinds.add(StepKind.CHOICE);
    }
    if (spec.getWait() != null) {
      kinds.add(StepKind.WAIT);
    }
    if (spec.getDelay() != null) {
      kinds.add(StepKind.DELAY);
    }
    if (spec.getMap() != null) {
      kinds.add(StepKind.MAP);
    }
    if (spec.getWorkflow() != null) {
      kinds.add(StepKind.WORKFLOW);
    }
    return kinds;
  }

  private void taskFieldsAbsent(String at, StepSpec spec, StepKind kind) {
    Map<String, Object> taskFields = new LinkedHashMap<>();
    taskFields.put("action", spec.getAction());
    taskFields.put("compensate", spec.getCompensate());
    taskFields.put("timeout", spec.getTimeout());
    taskFields.put("onTimeout", spec.getOnTimeout());
    taskFields.put("maxDispatches", spec.getMaxDispatches());
    taskFields.put("input", spec.getInput());
    taskFields.forEach((field, value) -> {
      if (value != null && !(kind == StepKind.WORKFLOW && (field.equals("timeout") || field.equals("input")))) {
        invalid(of(at + "." + field, spec.getName()) + " belongs to a task, and this step is a " + kind.wireName()
            + (field.equals("timeout") && kind == StepKind.WAIT ? " (a wait's timeout is wait.timeout)" : ""));
      }
    });
  }

  private Step.Task task(String at, StepSpec spec) {
    String name = spec.getName();
    token(at + ".service", name, spec.getService(), true);
    token(at + ".command", name, spec.getCommand(), true);
    token(at + ".action", name, spec.getAction(), false);
    token(at + ".compensate", name, spec.getCompensate(), false);
    Duration timeout = spec.getTimeout() == null ? null : duration(at + ".timeout", name, spec.getTimeout());
    OnTimeout onTimeout = spec.getOnTimeout() == null ? OnTimeout.Fail : spec.getOnTimeout();
    Integer asked = spec.getMaxDispatches();
    if (asked != null && (asked < 1 || asked > MAX_DISPATCHES)) {
      invalid(of(at + ".maxDispatches", name) + " is " + asked + ": it must be between 1 and " + MAX_DISPATCHES);
    }
    int maxDispatches = onTimeout == OnTimeout.Redispatch ? (asked == null ? DEFAULT_MAX_DISPATCHES : asked) : 1;
    Map<String, Expression> input = inputMapping(at, spec);
    String action = spec.getAction() == null || spec.getAction().isBlank() ? spec.getCommand() : spec.getAction();
    String compensate = spec.getCompensate() == null || spec.getCompensate().isBlank() ? null : spec.getCompensate();
    return new Step.Task(spec.getName(), spec.getService(), spec.getCommand(), action, compensate, timeout, onTimeout,
        maxDispatches, input);
  }

  /** A child workflow step: the Workflow's name (checked here as a name; the operator checks that it exists). */
  private Step.Child child(String at, StepSpec spec) {
    String name = spec.getName();
    String workflow = spec.getWorkflow();
    if (!workflow.matches(Bounds.DNS_LABEL_PATTERN) || workflow.length() > Bounds.NAME) {
      invalid(of(at + ".workflow", name) + ": '" + workflow + "' is not a Workflow name: lowercase letters, digits"
          + " and '-', at most " + Bounds.NAME + " characters");
    }
    Duration timeout = spec.getTimeout() == null ? null : duration(at + ".timeout", name, spec.getTimeout());
    return new Step.Child(name, workflow, inputMapping(at, spec), timeout);
  }

  /** A task's or a child's {@code input}: each entry a CEL value (also over item and index inside a map). */
  private Map<String, Expression> inputMapping(String at, StepSpec spec) {
    String name = spec.getName();
    Map<String, Expression> input = new LinkedHashMap<>();
    if (spec.getInput() != null) {
      if (spec.getInput().size() > Bounds.INPUT_ENTRIES) {
        invalid(of(at + ".input", name) + " has " + spec.getInput().size() + " entries; at most "
            + Bounds.INPUT_ENTRIES + " are allowed");
      }
      spec.getInput().forEach((key, text) -> {
        String field = at + ".input." + key;
        if (key == null || key.isBlank() || key.length() > Bounds.NAME) {
          invalid(of(at + ".input", name) + ": the key '" + key + "' must be 1 to " + Bounds.NAME + " characters");
          return;
        }
        Expression e = compiled(field, name, Expression.value(text, insideMap != null));
        if (e != null) {
          input.put(key, e);
        }
      });
    }
    return input;
  }

  private Step.Parallel parallel(String at, StepSpec spec, int depth) {
    String name = spec.getName();
    List<BranchSpec> branches = spec.getParallel();
    if (branches.size() < 2) {
      invalid(of(at + ".parallel", name) + " has " + branches.size() + " branch" + (branches.size() == 1 ? "" : "es")
          + ": a parallel step needs at least 2 (a single branch is just its steps)");
    } else if (branches.size() > Bounds.BRANCHES) {
      invalid(of(at + ".parallel", name) + " has " + branches.size() + " branches; at most " + Bounds.BRANCHES
          + " are allowed");
    }
    List<List<Step>> out = new ArrayList<>();
    for (int b = 0; b < branches.size(); b++) {
      String field = at + ".parallel[" + b + "].steps";
      List<StepSpec> steps = branches.get(b) == null ? List.of() : branches.get(b).getSteps();
      if (steps.isEmpty()) {
        invalid(of(field, name) + " is empty: every branch of a parallel step needs at least one step");
      }
      nestedBound(field, name, steps);
      out.add(steps(field, steps, depth + 1));
    }
    return new Step.Parallel(name, out);
  }

  private Step.Choice choice(String at, StepSpec spec, int depth) {
    String name = spec.getName();
    List<CaseSpec> cases = spec.getChoice();
    if (cases.isEmpty()) {
      invalid(of(at + ".choice", name) + " is empty: a choice step needs at least one case (when + steps)");
    } else if (cases.size() > Bounds.CASES) {
      invalid(of(at + ".choice", name) + " has " + cases.size() + " cases; at most " + Bounds.CASES + " are allowed");
    }
    List<Step.Case> out = new ArrayList<>();
    for (int c = 0; c < cases.size(); c++) {
      String field = at + ".choice[" + c + "]";
      CaseSpec spec1 = cases.get(c) == null ? new CaseSpec() : cases.get(c);
      Expression when = spec1.getWhen() == null ? null
          : compiled(field + ".when", name, Expression.condition(spec1.getWhen(), insideMap != null));
      if (spec1.getWhen() == null) {
        invalid(of(field + ".when", name) + " is missing: each case of a choice needs a condition");
      }
      nestedBound(field + ".steps", name, spec1.getSteps());
      List<Step> steps = steps(field + ".steps", spec1.getSteps(), depth + 1);
      if (when != null) {
        out.add(new Step.Case(when, steps));
      }
    }
    List<StepSpec> otherwise = spec.getOtherwise() == null ? List.of() : spec.getOtherwise();
    nestedBound(at + ".otherwise", name, otherwise);
    return new Step.Choice(name, out, steps(at + ".otherwise", otherwise, depth + 1));
  }

  private Step.Map map(String at, StepSpec spec, int depth) {
    String name = spec.getName();
    dev.baton.api.v1alpha1.MapSpec map = spec.getMap();
    Expression items = null;
    if (map.getItems() == null) {
      invalid(of(at + ".map.items", name) + " is missing: a CEL expression yielding the list to map over, e.g."
          + " input.items");
    } else {
      items = compiled(at + ".map.items", name, Expression.list(map.getItems()));
    }
    int maxConcurrency = bounded(at + ".map.maxConcurrency", name, map.getMaxConcurrency());
    int tolerated = bounded(at + ".map.toleratedFailures", name, map.getToleratedFailures());
    List<StepSpec> inner = map.getSteps();
    if (inner.isEmpty()) {
      invalid(of(at + ".map.steps", name) + " is empty: a map needs the steps of one iteration");
    }
    nestedBound(at + ".map.steps", name, inner);
    insideMap = name;
    List<Step> steps;
    try {
      steps = steps(at + ".map.steps", inner, depth + 1);
    } finally {
      insideMap = null;
    }
    return items == null || steps.isEmpty() ? null : new Step.Map(name, items, maxConcurrency, tolerated, steps);
  }

  private int bounded(String field, String step, Integer value) {
    if (value == null) {
      return 0;
    }
    if (value < 0 || value > Bounds.MAP_ITEMS) {
      invalid(of(field, step) + " is " + value + ": it must be between 0 and " + Bounds.MAP_ITEMS);
      return 0;
    }
    return value;
  }

  private Step.Wait waitStep(String at, StepSpec spec) {
    String name = spec.getName();
    String signal = spec.getWait().getSignal();
    if (signal == null) {
      invalid(of(at + ".wait.signal", name) + " is missing: name the signal the step waits for, e.g. approve");
    } else {
      token(at + ".wait.signal", name, signal, true);
    }
    String timeout = spec.getWait().getTimeout();
    return new Step.Wait(name, signal, timeout == null ? null : duration(at + ".wait.timeout", name, timeout));
  }

  private void nestedBound(String field, String step, List<StepSpec> steps) {
    if (steps.size() > Bounds.NESTED_STEPS) {
      invalid(of(field, step) + " has " + steps.size() + " steps; at most " + Bounds.NESTED_STEPS + " are allowed");
    }
  }

  private Expression compiled(String field, String step, Expression.Compiled compiled) {
    if (!compiled.ok()) {
      invalid(of(field, step) + ": the CEL expression does not compile: " + compiled.error());
      return null;
    }
    expressions.put(of(field, step), compiled.expression());
    if (insideMap != null) {
      expressionInMap.put(of(field, step), insideMap);
    }
    return compiled.expression();
  }

  private Duration duration(String field, String step, String text) {
    try {
      return BatonDuration.parse(text).toDuration();
    } catch (IllegalArgumentException e) {
      invalid(of(field, step) + ": " + e.getMessage());
    } catch (ArithmeticException e) {
      invalid(of(field, step) + ": '" + text + "' is too long a duration");
    }
    return null;
  }

  private void token(String field, String step, String value, boolean required) {
    if (value == null && !required) {
      return;
    }
    if (value == null) {
      invalid(of(field, step) + " is missing");
    } else if (!Names.isValidToken(value)) {
      invalid(of(field, step) + ": '" + value + "' is not a valid name: lowercase letters, digits, '_' and '-',"
          + " no dots");
    }
  }

  /**
   * A field of a step as its problems begin, {@code spec.steps[2].choice[0].when (step 'route')}: the step is the one
   * that holds the field (a choice for its cases' conditions, a parallel for its branches). A step without a name has
   * only its field.
   */
  private static String of(String field, String step) {
    return step == null ? field : field + " (step '" + step + "')";
  }

  private void invalid(String message) {
    problems.add(Problem.invalid(message));
  }
}
