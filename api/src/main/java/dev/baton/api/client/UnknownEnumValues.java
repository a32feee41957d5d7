package dev.baton.api.client;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import dev.baton.api.v1alpha1.TolerantSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a value of one of Baton's enum fields that this version does not know as unset, and notes it on the spec it
 * was read into ({@link TolerantSpec#getUnknownValues()}), where the translators find it and refuse the resource with
 * the field and the value (Ready=False, Stalled). Without it, such a value failed the whole read: an informer stopped,
 * and the operator (or the runtime's Workflow watch) with it. Values outside a spec (none so far) are read as unset.
 */
final class UnknownEnumValues extends DeserializationProblemHandler {

  /** The JSON name of the spec's notes, in Baton's own serialization only ({@link MixIn}). */
  static final String PROPERTY = "x-baton-unknown-values";

  @Override
  public Object handleWeirdStringValue(DeserializationContext ctxt, Class<?> targetType, String value,
      String failureMsg) {
    if (!targetType.isEnum() || !targetType.getPackageName().startsWith("dev.baton.")) {
      return NOT_HANDLED;
    }
    List<String> path = new ArrayList<>();
    for (JsonStreamContext c = ctxt.getParser().getParsingContext(); c != null && !c.inRoot(); c = c.getParent()) {
      if (c.inArray()) {
        path.add(0, "[" + c.getCurrentIndex() + "]");
        continue;
      }
      path.add(0, "." + c.getCurrentName());
      if (c.getCurrentValue() instanceof TolerantSpec spec) {
        spec.getUnknownValues().add(new UnknownValue("spec" + String.join("", path), value, known(targetType)));
        break;
      }
    }
    return null;
  }

  /** The names an enum is read from: each constant's {@code @JsonProperty}, or its name. */
  private static List<String> known(Class<?> type) {
    return Arrays.stream(type.getFields()).filter(java.lang.reflect.Field::isEnumConstant).map(f -> {
      JsonProperty name = f.getAnnotation(JsonProperty.class);
      return name == null || name.value().isEmpty() ? f.getName() : name.value();
    }).toList();
  }

  /** Makes the notes a property of Baton's own serialization, so that a copy made through JSON keeps them. */
  abstract static class MixIn {
    @JsonIgnore(false)
    @JsonProperty(PROPERTY)
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    abstract List<UnknownValue> getUnknownValues();

    @JsonIgnore(false)
    @JsonProperty(PROPERTY)
    abstract void setUnknownValues(List<UnknownValue> unknownValues);
  }
}
