package dev.baton.api.v1alpha1;

/**
 * The size limits of every field (docs/design.md#resources). A real API server costs each CEL rule from these bounds
 * before it accepts a CRD, so every string has a maxLength, every list a maxItems and every map a maxProperties;
 * {@code CrdBoundsTest} fails on a field without one, {@code CelRuleCostTest} on a rule they make too expensive.
 */
public final class Bounds {

  /** Names of services, commands, subscriptions, steps, entities, actions; Kubernetes object names used as labels. */
  public static final int NAME = 63;
  /** Names of Kubernetes objects referred to (a RetryPolicy, a Secret, a ServiceAccount): DNS-1123 subdomains. */
  public static final int OBJECT_NAME = 253;
  /** RabbitMQ queue and exchange names (RabbitMQ allows 255 bytes). */
  public static final int BROKER_NAME = 255;
  /** Durations such as 30s or 1m30s. */
  public static final int DURATION = 16;
  /** CEL expressions of the workflow language. */
  public static final int EXPRESSION = 1024;
  /** Cron expressions of schedules. */
  public static final int CRON = 128;
  /** The most a command's maxInFlight may say. */
  public static final int MAX_IN_FLIGHT = 100_000;
  /** Schedules of one Workflow. */
  public static final int SCHEDULES = 10;
  /** Container image references (registry/path:tag@sha256:digest). */
  public static final int IMAGE = 512;
  /** Topic binding patterns over entity.action.result. */
  public static final int BINDING_PATTERN = 255;
  /** Human-readable text written by the operator (condition messages). */
  public static final int MESSAGE = 32768;
  /** Machine-readable short words (condition types and reasons). */
  public static final int WORD = 316;
  /** Values of environment variables, labels' and annotations' values are bounded by their own rules below. */
  public static final int ENV_VALUE = 32768;
  /** Label values (Kubernetes: 63). */
  public static final int LABEL_VALUE = 63;
  /** Annotation values (Kubernetes bounds all annotations of an object together at 256 KiB). */
  public static final int ANNOTATION_VALUE = 4096;

  /** Namespaces listed in one grant of a WorkerService's spec.access (commandsFrom, eventsTo). */
  public static final int GRANTS = 64;
  /** Commands or subscriptions of one WorkerService (the command/subscription name clash rule iterates both). */
  public static final int CONSUMERS = 50;
  /** Top-level steps of one Workflow. */
  public static final int STEPS = 100;
  /** Steps of one parallel branch, one choice case or one otherwise list. */
  public static final int NESTED_STEPS = 20;
  /** Steps of one Workflow in all, nested ones included (checked by the Workflow translator). */
  public static final int ALL_STEPS = 200;
  /** Branches of one parallel step. */
  public static final int BRANCHES = 10;
  /** Cases of one choice step. */
  public static final int CASES = 10;
  /** Levels of steps lists: spec.steps is level 1, the steps of its parallel branches and choices level 2, and so on. */
  public static final int NESTING = 3;
  /** Items of one map step's list, evaluated at run time (a longer list fails the step). */
  public static final int MAP_ITEMS = 10_000;
  /** Entries of a task's input mapping. */
  public static final int INPUT_ENTRIES = 32;
  /** Retry delays of a RetryPolicy. */
  public static final int DELAYS = 20;
  /** Environment variables of a worker container. */
  public static final int ENV = 100;
  /** Entries of a label, annotation or node selector map. */
  public static final int MAP_ENTRIES = 64;
  /** Short lists inside embedded Kubernetes types (tolerations, capabilities, ...). */
  public static final int SHORT_LIST = 32;
  /** Conditions of a status. */
  public static final int CONDITIONS = 16;
  /** Queue and exchange names listed in a status. */
  public static final int STATUS_NAMES = 4096;

  /** A DNS-1123 subdomain, Kubernetes' rule for most object names. */
  public static final String OBJECT_NAME_PATTERN =
      "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
  /** A DNS-1123 label: at most 63 characters, no dots (names that become label values or parts of other names). */
  public static final String DNS_LABEL_PATTERN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

  /** A namespace name (a DNS-1123 label), or {@code *} for every namespace: whom a WorkerService's access grants. */
  public static final String NAMESPACE_OR_EVERY_PATTERN = "^(\\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$";

  private Bounds() {}
}
