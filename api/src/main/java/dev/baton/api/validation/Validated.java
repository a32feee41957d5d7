package dev.baton.api.validation;

import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The result of translating a custom resource: a value, or the problems that stop it. Validation produces these;
 * it never throws, so a bad spec ends as a condition instead of an exception loop.
 */
public final class Validated<T> {

  private final T value;
  private final List<Problem> problems;

  private Validated(T value, List<Problem> problems) {
    this.value = value;
    // Spec mistakes first, then missing references: fix the resource itself before looking elsewhere.
    this.problems = problems.stream().sorted(Comparator.comparing(p -> p.kind().ordinal())).toList();
  }

  public static <T> Validated<T> valid(T value) {
    return new Validated<>(value, List.of());
  }

  public static <T> Validated<T> invalid(List<Problem> problems) {
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an invalid result needs at least one problem");
    }
    return new Validated<>(null, problems);
  }

  /** {@link #valid} when there are no problems, else {@link #invalid}; the value is only built when valid. */
  public static <T> Validated<T> of(List<Problem> problems, Supplier<T> value) {
    return problems.isEmpty() ? valid(value.get()) : invalid(problems);
  }

  public boolean isValid() {
    return problems.isEmpty();
  }

  public T value() {
    if (!isValid()) {
      throw new NoSuchElementException("invalid: " + message());
    }
    return value;
  }

  public List<Problem> problems() {
    return problems;
  }

  /** The kind of the most important problem; empty when valid. */
  public Optional<ProblemKind> kind() {
    return problems.isEmpty() ? Optional.empty() : Optional.of(problems.get(0).kind());
  }

  /** Every problem's message, most important first, in one line. */
  public String message() {
    return problems.stream().map(Problem::message).collect(Collectors.joining("; "));
  }
}
