package dev.baton.messaging.tracing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.MDC;

/**
 * The fields every log line about an instance carries (SLF4J MDC; the JSON log format writes them as fields): the
 * same names in the runtime and the worker SDK, so one search finds an instance's lines in both.
 */
public final class LogFields {

  public static final String INSTANCE_ID = "instanceId";
  public static final String WORKFLOW = "workflow";
  public static final String STEP = "step";
  public static final String TRACE_ID = "traceId";

  private LogFields() {}

  /** Puts the non-null fields into the MDC until {@link Scope#close()}, which restores what was there before. */
  public static Scope open(String instanceId, String workflow, String step, String traceId) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put(INSTANCE_ID, instanceId);
    fields.put(WORKFLOW, workflow);
    fields.put(STEP, step);
    fields.put(TRACE_ID, traceId);
    return new Scope(fields);
  }

  /** The MDC fields of one piece of work; closing restores the fields as they were before it. */
  public static final class Scope implements AutoCloseable {
    private final List<Runnable> restore = new ArrayList<>();

    private Scope(Map<String, String> fields) {
      fields.forEach((key, value) -> {
        if (value == null || value.isEmpty()) {
          return;
        }
        String before = MDC.get(key);
        MDC.put(key, value);
        restore.add(() -> {
          if (before == null) {
            MDC.remove(key);
          } else {
            MDC.put(key, before);
          }
        });
      });
    }

    @Override
    public void close() {
      restore.forEach(Runnable::run);
    }
  }
}
