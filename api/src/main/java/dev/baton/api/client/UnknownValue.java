package dev.baton.api.client;

import java.util.List;

/**
 * A value of a field this version of Baton reads as one of a fixed set (an enum: {@code onFailure}, {@code onTimeout},
 * {@code outcomes}, ...) that is none of them: a newer CRD's value met during an upgrade or a rollback. The field is
 * read as unset; the resource carries this, and its translator refuses it, naming the field and the value, so that
 * the resource is Stalled instead of the operator or the runtime's watch failing, or a default silently standing in.
 *
 * @param field where, from the resource ({@code spec.steps[2].onTimeout})
 * @param value what it says
 * @param known the values this version knows there
 */
public record UnknownValue(String field, String value, List<String> known) {

  public UnknownValue {
    known = List.copyOf(known);
  }

  /** For a status condition: the field, the value, what would do, and the likely cause. */
  public String message() {
    return field + ": '" + value + "' is not a value this version of Baton knows (" + String.join(", ", known)
        + "): a newer CRD's, during an upgrade or a rollback? Upgrade Baton, or use one of those";
  }
}
