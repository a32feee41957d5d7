package dev.baton.runtime.ui;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * One page of a workflow's instances, newest first, and where the next page starts. Keyset paging: the next page is
 * "older than the last row shown" ({@code created_at}, then id), so a page costs the same however deep it is and
 * instances started meanwhile do not shift the pages.
 */
record InstancePage(List<Row> rows, Optional<Cursor> next) {

  /** What the list shows of an instance. */
  record Row(UUID id, String businessKey, String status, String currentStep, int attempt, Instant since,
      Instant createdAt, Instant finishedAt, String lastError) {}

  /** The position after a row: page on from there. */
  record Cursor(Instant createdAt, UUID id) {

    /** {@code <epoch seconds>.<nanos>~<id>}: exact to the database's microsecond, safe in a URL. */
    String format() {
      return createdAt.getEpochSecond() + "." + createdAt.getNano() + "~" + id;
    }

    /** The cursor of a link, or empty when the text is not one (a hand-edited URL shows the first page). */
    static Optional<Cursor> parse(String text) {
      if (text == null || text.isBlank()) {
        return Optional.empty();
      }
      try {
        int tilde = text.indexOf('~');
        int dot = text.indexOf('.');
        if (tilde < 0 || dot < 0 || dot > tilde) {
          return Optional.empty();
        }
        Instant at = Instant.ofEpochSecond(Long.parseLong(text.substring(0, dot)),
            Long.parseLong(text.substring(dot + 1, tilde)));
        return Optional.of(new Cursor(at, UUID.fromString(text.substring(tilde + 1))));
      } catch (RuntimeException e) {
        return Optional.empty();
      }
    }
  }

  /** Cuts {@code fetched} (up to {@code limit + 1} rows, newest first) to a page and says whether more follow. */
  static InstancePage of(List<Row> fetched, int limit) {
    if (fetched.size() <= limit) {
      return new InstancePage(List.copyOf(fetched), Optional.empty());
    }
    List<Row> page = List.copyOf(fetched.subList(0, limit));
    Row last = page.get(limit - 1);
    return new InstancePage(page, Optional.of(new Cursor(last.createdAt(), last.id())));
  }
}
