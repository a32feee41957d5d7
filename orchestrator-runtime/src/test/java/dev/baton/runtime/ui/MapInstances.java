package dev.baton.runtime.ui;

import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.LastError;
import dev.baton.httpapi.StepDocument;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An instance of a shipping workflow as the runtime's document has it: {@code reserve}, then the map
 * {@code ship-items} over {@code input.items}, whose iterations run {@code ship-one} — every iteration started with
 * the status given, the rest of the items not started yet.
 */
final class MapInstances {

  static final Instant T = Instant.parse("2026-12-05T10:00:00Z");

  static final WorkflowSpec SPEC = Json.MAPPER.convertValue(Json.readObject("""
      {"steps": [
        {"name": "reserve", "service": "stock", "command": "reserve"},
        {"name": "ship-items", "map": {"items": "input.items", "maxConcurrency": 10,
         "steps": [{"name": "ship-one", "service": "shipping", "command": "ship"}]}}]}"""), WorkflowSpec.class);

  private MapInstances() {}

  /** The document of an instance in {@code status} whose map has {@code items} items, its iterations so far. */
  static InstanceDocument shipping(String status, String mapStatus, int items, List<String> iterations) {
    List<StepDocument> steps = new ArrayList<>();
    steps.add(new StepDocument("reserve", "task", null, "reserve", "SUCCEEDED", 1, T, T.plusSeconds(1), null, null,
        null, null, "m-reserve", null));
    steps.add(new StepDocument("ship-items", "map", null, null, mapStatus, 1, T.plusSeconds(1),
        "RUNNING".equals(mapStatus) ? null : T.plusSeconds(60), null, null, null, null, null, items));
    LastError lastError = null;
    for (int i = 0; i < iterations.size(); i++) {
      String s = iterations.get(i);
      StepDocument.StepError error = switch (s) {
        case "FAILED" -> new StepDocument.StepError("NO_PARCELS", "no parcels left for item " + i);
        case "CANCELLED" -> new StepDocument.StepError("Cancelled", "its iteration failed");
        default -> null;
      };
      Instant end = "RUNNING".equals(s) ? null : T.plusSeconds(2 + i);
      steps.add(new StepDocument("ship-items[" + i + "]", "iteration", "ship-items", null, s, 1, T.plusSeconds(1),
          end, null, null, null, null, null, null));
      steps.add(new StepDocument("ship-one[" + i + "]", "task", "ship-items[" + i + "]", "ship", s, 1,
          T.plusSeconds(1), end, null, error, null, null, "m-" + i, null));
      if (lastError == null && "FAILED".equals(s)) { // the first failure past the tolerance of 0
        lastError = new LastError("ship-one[" + i + "]", "task", "ship", 1, s, error.code(), error.reason(), end);
      }
    }
    Instant finished = "RUNNING".equals(status) ? null : T.plusSeconds(60);
    return new InstanceDocument("i-map", "shop", "shipping", 1, "order-7", null, status, "FORWARD", "ship-items", 1,
        T.plusSeconds(1), null, null, lastError, T, T, finished, "alice", Json.object(), Json.object(), steps,
        List.of());
  }

  /** The statuses of iterations: the first {@code succeeded} succeeded, then {@code running}, then {@code failed}. */
  static List<String> iterations(int succeeded, int running, int failed) {
    List<String> statuses = new ArrayList<>();
    statuses.addAll(Collections.nCopies(succeeded, "SUCCEEDED"));
    statuses.addAll(Collections.nCopies(running, "RUNNING"));
    statuses.addAll(Collections.nCopies(failed, "FAILED"));
    return statuses;
  }
}
