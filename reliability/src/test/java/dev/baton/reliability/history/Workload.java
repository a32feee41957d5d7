package dev.baton.reliability.history;

import dev.baton.api.v1alpha1.BranchSpec;
import dev.baton.api.v1alpha1.CaseSpec;
import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WaitSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.reliability.ledger.PlannedBehaviour;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Everything one seed decides, through one {@link Random}: three Workflows that between them hold every step kind
 * (a saga of tasks with compensations, a parallel group, a choice, a wait for a signal, delays), with step timeouts
 * of a few seconds so that timeouts, re-sends and deadlines really happen; per instance its Workflow, input, when it
 * starts, the behaviour of the worker at each of its tasks, whether and when the driver signals it, and whether and
 * when it is cancelled (with or without compensation); and the faults of the run, with their moments.
 */
public record Workload(long seed, Map<String, WorkflowSpec> workflows, Map<String, List<String>> services,
    List<Planned> instances, List<PlannedFault> faults, Duration spread) {

  /** A task of a Workflow, as the plans need it. */
  record Task(String workflow, String step, String service, String command, String compensate, long timeoutMillis) {}

  /**
   * One instance: its Workflow, business key and input amount (the choice reads it), when it starts (from the run's
   * start), its worker plan (step/command → behaviour), the signal the driver sends it and when (null: never), and
   * when it is cancelled (null: never) and whether with compensation.
   */
  public record Planned(String workflow, String key, int amount, Duration startAt, Map<String, String> plan,
      String signal, Duration signalAfter, Duration cancelAfter, boolean cancelCompensate) {

    /** The start request's body: the plan travels in the input, so every worker JVM reads the same one. */
    public String startBody() {
      StringBuilder plan = new StringBuilder();
      this.plan.forEach((k, v) -> plan.append(plan.isEmpty() ? "" : ",").append('"').append(k).append("\":\"")
          .append(v).append('"'));
      return "{\"businessKey\":\"" + key + "\",\"input\":{\"amount\":" + amount + ",\"" + PlannedBehaviour.PLAN
          + "\":{" + plan + "}}}";
    }
  }

  /** A fault of the run, when it begins (from the run's start), and how long it lasts where it lasts. */
  public record PlannedFault(Fault fault, Duration at, Duration lasting) {

    @Override
    public String toString() {
      return fault.label() + (fault.lasts() ? " " + lasting.toSeconds() + "s" : "") + " at " + at.toSeconds() + "s";
    }
  }

  /** The longest task timeout any revision may have (a Workflow edit draws from the same range). */
  public Duration longestTimeout() {
    return Duration.ofMillis(LONGEST_TIMEOUT_MILLIS);
  }

  static final long LONGEST_TIMEOUT_MILLIS = 4_000;
  /** The supply Workflow's deadline for the whole instance ({@code spec.timeout}). */
  static final String SUPPLY_TIMEOUT = "7s";
  public static final String SAGA = "saga";
  public static final String TRIP = "trip";
  public static final String SUPPLY = "supply";
  /** The service whose worker runs in a JVM of its own, so that it can be SIGKILLed. */
  public static final String KILLABLE_SERVICE = "pay";

  public static Workload generate(long seed, int instances) {
    Random rnd = new Random(seed);
    List<Task> tasks = new ArrayList<>();
    Map<String, WorkflowSpec> workflows = new LinkedHashMap<>();
    workflows.put(SAGA, saga(rnd, tasks));
    workflows.put(TRIP, trip(rnd, tasks));
    workflows.put(SUPPLY, supply(rnd, tasks));
    Map<String, List<String>> services = new LinkedHashMap<>();
    for (Task t : tasks) {
      List<String> commands = services.computeIfAbsent(t.service(), s -> new ArrayList<>());
      commands.add(t.command());
      if (t.compensate() != null) {
        commands.add(t.compensate());
      }
    }
    Duration spread = Duration.ofMillis(Math.max(10_000, instances * 200L));
    List<String> names = List.copyOf(workflows.keySet());
    List<Planned> planned = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      String workflow = names.get(rnd.nextInt(names.size()));
      Map<String, String> plan = new LinkedHashMap<>();
      tasks.stream().filter(t -> t.workflow().equals(workflow))
          .forEach(t -> plan.put(PlannedBehaviour.key(t.step(), t.command()), behaviour(rnd, t.timeoutMillis())));
      String signal = switch (workflow) {
        case TRIP -> "approve";
        case SUPPLY -> "confirm";
        default -> null;
      };
      // a quarter never signalled (the wait times out); the others early, in time, or late
      Duration signalAfter = signal == null || rnd.nextInt(4) == 0 ? null : Duration.ofMillis(rnd.nextInt(10_000));
      boolean cancel = rnd.nextInt(100) < 12;
      planned.add(new Planned(workflow, "s" + seed + "-" + i, 1 + rnd.nextInt(100),
          Duration.ofMillis((long) (rnd.nextDouble() * spread.toMillis())), plan, signal, signalAfter,
          cancel ? Duration.ofMillis(300 + rnd.nextInt(8_000)) : null, cancel && rnd.nextBoolean()));
    }
    planned.sort(Comparator.comparing(Planned::startAt));
    return new Workload(seed, workflows, services, planned, faults(rnd, spread), spread);
  }

  /**
   * The worker's behaviour at a task whose timeout is {@code timeout} ms: mostly success; a business refusal; a few
   * technical failures up the staircase (past the deadline from about the fourth); slow around the timeout (some
   * finish just before the deadline, some are interrupted at it); or deaf to the interrupt around it.
   */
  static String behaviour(Random rnd, long timeout) {
    int r = rnd.nextInt(100);
    if (r < 64) {
      return "succeed";
    } else if (r < 70) {
      return "fail";
    } else if (r < 80) {
      return "error:" + (1 + rnd.nextInt(5));
    } else if (r < 91) {
      return "slow:" + (long) (timeout * (0.7 + 0.6 * rnd.nextDouble()));
    }
    return "hang:" + (long) (timeout * (0.5 + rnd.nextDouble()));
  }

  /** 3 to 5 of the faults, each once, at moments spread over the starts. */
  static List<PlannedFault> faults(Random rnd, Duration spread) {
    List<Fault> all = new ArrayList<>(List.of(Fault.values()));
    java.util.Collections.shuffle(all, rnd);
    List<PlannedFault> chosen = new ArrayList<>();
    for (Fault f : all.subList(0, 3 + rnd.nextInt(3))) {
      long at = (long) (spread.toMillis() * (0.1 + 0.8 * rnd.nextDouble()));
      chosen.add(new PlannedFault(f, Duration.ofMillis(at), Duration.ofSeconds(2 + rnd.nextInt(4))));
    }
    chosen.sort(Comparator.comparing(PlannedFault::at));
    return chosen;
  }

  /** A task's or wait's timeout: 2 to 4 s in steps of 250 ms. */
  static long timeout(Random rnd) {
    return 2_000 + rnd.nextInt(9) * 250L;
  }

  private static StepSpec task(Random rnd, List<Task> tasks, String workflow, String step, String service,
      String command, String compensate) {
    long timeout = timeout(rnd);
    StepSpec s = new StepSpec(step, service, command);
    s.setCompensate(compensate);
    s.setTimeout(timeout + "ms");
    if (rnd.nextBoolean()) {
      s.setOnTimeout(OnTimeout.Redispatch);
      s.setMaxDispatches(2 + rnd.nextInt(2));
    }
    tasks.add(new Task(workflow, step, service, command, compensate, timeout));
    return s;
  }

  private static StepSpec delay(String name, long millis) {
    StepSpec s = new StepSpec();
    s.setName(name);
    s.setDelay(millis + "ms");
    return s;
  }

  private static StepSpec await(Random rnd, String name, String signal) {
    StepSpec s = new StepSpec();
    s.setName(name);
    s.setWait(new WaitSpec(signal, timeout(rnd) + "ms"));
    return s;
  }

  /** reserve (undo: release) → charge (undo: refund) → ship. */
  private static WorkflowSpec saga(Random rnd, List<Task> tasks) {
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity("order");
    spec.setSteps(new ArrayList<>(List.of(task(rnd, tasks, SAGA, "reserve", "stock", "reserve", "release"),
        task(rnd, tasks, SAGA, "charge", "pay", "charge", "refund"),
        task(rnd, tasks, SAGA, "ship", "ship", "ship", null))));
    return spec;
  }

  /**
   * parallel [hotel (undo) | flight (undo), settle delay] → choice: amount > 50 waits for "approve", else a delay →
   * notify.
   */
  private static WorkflowSpec trip(Random rnd, List<Task> tasks) {
    StepSpec book = new StepSpec();
    book.setName("book");
    book.setParallel(new ArrayList<>(List.of(
        new BranchSpec(new ArrayList<>(List.of(task(rnd, tasks, TRIP, "hotel", "travel", "book-hotel",
            "unbook-hotel")))),
        new BranchSpec(new ArrayList<>(List.of(task(rnd, tasks, TRIP, "flight", "travel", "book-flight",
            "unbook-flight"), delay("settle", 300 + rnd.nextInt(1_200))))))));
    StepSpec route = new StepSpec();
    route.setName("route");
    route.setChoice(new ArrayList<>(List.of(new CaseSpec("input.amount > 50",
        new ArrayList<>(List.of(await(rnd, "approval", "approve")))))));
    route.setOtherwise(new ArrayList<>(List.of(delay("cooloff", 300 + rnd.nextInt(1_200)))));
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity("trip");
    spec.setSteps(new ArrayList<>(List.of(book, route, task(rnd, tasks, TRIP, "notify", "ship", "notify", null))));
    return spec;
  }

  /**
   * pause delay → order-parts (undo: return-parts) → wait for "confirm" → pay-supplier (undo: refund-supplier), the
   * whole instance within {@link #SUPPLY_TIMEOUT}: a late signal, a slow worker or a climb up the staircase runs it past
   * its deadline in any of its steps (a fixed value: it draws nothing, so every seed's workload stays as it was).
   */
  private static WorkflowSpec supply(Random rnd, List<Task> tasks) {
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity("supply");
    spec.setTimeout(SUPPLY_TIMEOUT);
    spec.setSteps(new ArrayList<>(List.of(delay("pause", 300 + rnd.nextInt(900)),
        task(rnd, tasks, SUPPLY, "order-parts", "stock", "order-parts", "return-parts"),
        await(rnd, "confirm", "confirm"),
        task(rnd, tasks, SUPPLY, "pay-supplier", "pay", "pay-supplier", "refund-supplier"))));
    return spec;
  }
}
