package dev.baton.httpapi;

import java.util.List;

/** What a batch start did, one result per start in the order given. */
public record BatchStartResponse(List<Result> results) {

  /** One start of a batch: the instance, its status, and whether this start created it (else the key existed). */
  public record Result(String id, String status, boolean created) {}
}
