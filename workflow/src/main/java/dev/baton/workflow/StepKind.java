package dev.baton.workflow;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** The kinds of step of the Workflow language; in the API and in JSON they are written in lower case ("task", ...). */
public enum StepKind {
  /** A command sent to a worker service; its result ends the step. */
  TASK,
  /** Branches of steps started together; the step ends when every branch has ended. */
  PARALLEL,
  /** The steps of the first case whose condition holds, else those of {@code otherwise}. */
  CHOICE,
  /** The same steps once per item of a list evaluated at run time. */
  MAP,
  /** Starts an instance of another Workflow of the namespace and ends with it. */
  WORKFLOW,
  /** Ends when the instance receives a named signal (or fails at its timeout). */
  WAIT,
  /** A durable timer. */
  DELAY;

  /** A group holds branches of steps (parallel, choice, map); the other kinds are single steps. */
  public boolean isGroup() {
    return this == PARALLEL || this == CHOICE || this == MAP;
  }

  /** The API and JSON form: {@code task}, {@code parallel}, ... */
  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The kind of a wire name ({@code task}, ...), in any case. */
  @JsonCreator
  public static StepKind fromWireName(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }

  @Override
  public String toString() {
    return wireName();
  }
}
