package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.baton.api.client.UnknownValue;
import dev.baton.api.validation.Problem;
import dev.baton.api.validation.Validated;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A spec that carries the values of its enum fields this version of Baton did not know when it was read
 * ({@link UnknownValue}; the fields themselves read as unset). Not part of the CRD: Baton's own serialization
 * ({@link dev.baton.api.client.TolerantSerialization}) writes and reads them only so that a copy made by serializing
 * (JOSDK hands reconcilers such a copy) keeps them.
 */
public abstract class TolerantSpec {

  @JsonIgnore
  private List<UnknownValue> unknownValues = new ArrayList<>();

  /** The enum values of this spec this version does not know, in the order read; empty for a spec it fully knows. */
  @JsonIgnore
  public List<UnknownValue> getUnknownValues() {
    return unknownValues;
  }

  @JsonIgnore
  public void setUnknownValues(List<UnknownValue> unknownValues) {
    this.unknownValues = unknownValues == null ? new ArrayList<>() : new ArrayList<>(unknownValues);
  }

  /**
   * The spec refused for its unknown values, one problem each, naming the field and the value; empty when it has
   * none. Every translator asks first, before it reads a field such a value left unset (or at its default).
   */
  public <T> Optional<Validated<T>> refusedForUnknownValues() {
    return unknownValues.isEmpty() ? Optional.empty()
        : Optional.of(Validated.invalid(unknownValues.stream().map(v -> Problem.invalid(v.message())).toList()));
  }
}
