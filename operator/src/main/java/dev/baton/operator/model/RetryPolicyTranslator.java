package dev.baton.operator.model;

import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.RetryPolicySpec;
import dev.baton.api.validation.Problem;
import dev.baton.api.validation.Validated;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.RetryStaircase;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** RetryPolicy → {@link RetryStaircase}, or the problems a person must fix first. Pure. */
public final class RetryPolicyTranslator {

  /** The schema's upper bound; the mock API server does not enforce it, so we do. */
  static final int MAX_ATTEMPTS = 100;
  /** RabbitMQ's largest x-message-ttl (2^32-1 ms, about 49 days): a retry tier cannot hold a message longer. */
  static final long MAX_TTL_MILLIS = 4_294_967_295L;

  private RetryPolicyTranslator() {}

  public static Validated<RetryStaircase> fromCrd(RetryPolicy policy) {
    RetryPolicySpec spec = policy.getSpec();
    if (spec == null) {
      return Validated.invalid(List.of(Problem.invalid("spec is missing: set spec.maxAttempts (and spec.delays)")));
    }
    Optional<Validated<RetryStaircase>> unknown = spec.refusedForUnknownValues();
    if (unknown.isPresent()) {
      return unknown.get();
    }
    List<Problem> problems = new ArrayList<>();
    Integer maxAttempts = spec.getMaxAttempts();
    if (maxAttempts == null) {
      problems.add(Problem.invalid("spec.maxAttempts is required: total deliveries, the first included (1 = no retries)"));
    } else if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
      problems.add(Problem.invalid("spec.maxAttempts is " + maxAttempts + ": it must be between 1 and " + MAX_ATTEMPTS));
    }
    List<String> written = spec.getDelays() == null ? List.of() : spec.getDelays();
    List<BatonDuration> delays = new ArrayList<>();
    for (int i = 0; i < written.size(); i++) {
      try {
        BatonDuration delay = BatonDuration.parse(written.get(i));
        if (delay.toMillis() > MAX_TTL_MILLIS) {
          problems.add(Problem.invalid("spec.delays[" + i + "]: '" + written.get(i)
              + "' is longer than RabbitMQ's limit for message TTLs (about 49 days)"));
        }
        delays.add(delay);
      } catch (IllegalArgumentException | ArithmeticException e) {
        problems.add(Problem.invalid("spec.delays[" + i + "]: " + message(e, written.get(i))));
      }
    }
    if (maxAttempts != null && maxAttempts > 1 && written.isEmpty()) {
      problems.add(Problem.invalid(
          "spec.maxAttempts is " + maxAttempts + " but spec.delays is empty: list at least one delay, e.g. delays: [30s]"));
    }
    return Validated.of(problems, () -> new RetryStaircase(maxAttempts, delays));
  }

  private static String message(RuntimeException e, String text) {
    return e instanceof ArithmeticException ? "'" + text + "' is too long a duration" : e.getMessage();
  }
}
