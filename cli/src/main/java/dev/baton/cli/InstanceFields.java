package dev.baton.cli;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.baton.messaging.tracing.LogFields;
import java.util.Map;

/**
 * {@code %instance} in {@code baton dev}'s log pattern: the fields of a line about an instance, compactly, as
 * {@code " [order-fulfilment/charge 0b6f5f0e-... trace 4bf92f35...]"} (workflow/step, the instance id for {@code
 * baton describe}, the trace id for a trace UI); nothing on other lines.
 */
public final class InstanceFields extends ClassicConverter {

  @Override
  public String convert(ILoggingEvent event) {
    Map<String, String> mdc = event.getMDCPropertyMap();
    if (mdc == null || mdc.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    String workflow = mdc.get(LogFields.WORKFLOW);
    String step = mdc.get(LogFields.STEP);
    if (workflow != null) {
      b.append(workflow);
      if (step != null) {
        b.append('/').append(step);
      }
    } else if (step != null) {
      b.append(step);
    }
    append(b, mdc.get(LogFields.INSTANCE_ID), "");
    append(b, mdc.get(LogFields.TRACE_ID), "trace ");
    return b.isEmpty() ? "" : " [" + b + "]";
  }

  private static void append(StringBuilder b, String value, String label) {
    if (value != null) {
      b.append(b.isEmpty() ? "" : " ").append(label).append(value);
    }
  }
}
