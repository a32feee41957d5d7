package dev.baton.httpapi;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Map;

/**
 * A bulk operation as the API shows it ({@code GET /api/v1/operations/{id}}), and the answer of its creation.
 *
 * @param id null for a dry run
 * @param state {@code RUNNING} until every instance it matched has been acted on, then {@code DONE}; {@code DRY_RUN}
 *     for a dry run
 * @param matched how many instances the filter found when the operation was created (those started later are not
 *     part of it)
 * @param done how many it acted on
 * @param failed how many refused the action (a retry of an instance that is not FAILED, say); {@code lastFailure}
 *     says why, for the last of them
 */
public record OperationDocument(String id, String action, Map<String, String> filter, String state, long matched,
    long done, long failed, @JsonInclude(JsonInclude.Include.NON_NULL) String lastFailure,
    @JsonInclude(JsonInclude.Include.NON_NULL) String createdBy,
    @JsonInclude(JsonInclude.Include.NON_NULL) Instant createdAt,
    @JsonInclude(JsonInclude.Include.NON_NULL) Instant finishedAt) {

  public static final String RUNNING = "RUNNING";
  public static final String DONE = "DONE";
  public static final String DRY_RUN = "DRY_RUN";

  /** Whether every instance it matched has been acted on. */
  public boolean finished() {
    return DONE.equals(state) || DRY_RUN.equals(state);
  }
}
