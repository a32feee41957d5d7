package dev.baton.httpapi;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * {@code GET /healthz} (200 when {@code status} is UP, else 503): the database, the broker and the consumer lanes,
 * each {@code UP} or {@code DOWN}, and the orchestrator queues consumed. The broker may also be {@code BLOCKED}: a
 * memory or disk alarm holds publishers back; the runtime stays UP (cancels, timers and the API keep working) and
 * publishes once the alarm clears.
 *
 * @param lanesNotRunning why each lane that is not running is not; absent when all run
 */
public record Health(String status, String database, String broker, String lanes,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> lanesNotRunning, List<String> consuming) {

  public static final String UP = "UP";
  public static final String DOWN = "DOWN";
  /** The broker's state during a memory or disk alarm. */
  public static final String BLOCKED = "BLOCKED";

  public boolean up() {
    return UP.equals(status);
  }
}
