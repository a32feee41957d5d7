package dev.baton.cli.instances;

import dev.baton.cli.support.CliException;
import dev.baton.cli.support.Documents;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.OutputOptions;
import dev.baton.cli.support.StreamedTable;
import dev.baton.httpapi.InstanceDocument;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * {@code -w/--watch}: the instances as they are, then a row (or a document, or a name, as {@code -o} says) each time
 * one is new or has changed (status, step, attempt, end, last error: {@link InstanceRows#state}), asking the runtime
 * again every {@link #INTERVAL}. One instance is asked with the runtime's long poll ({@code ?wait=}), which answers at
 * once when it ends; a listing is asked again after the rest of the interval.
 */
final class InstanceWatch {

  /** How often the runtime is asked: a change shows within about this much. */
  static final Duration INTERVAL = Duration.ofSeconds(1);

  /** The instances as they are now; it may take up to {@code interval} to answer (a long poll). */
  @FunctionalInterface
  interface Poll {
    List<InstanceDocument> next(Duration interval);
  }

  /** Waits between two polls (a {@link Thread#sleep} outside tests). */
  @FunctionalInterface
  interface Pause {
    void pause(Duration d) throws InterruptedException;
  }

  private final PrintWriter out;
  private final OutputOptions output;
  private final InstanceRows rows;
  private final StreamedTable table;
  private final Clock clock;
  private final Pause pause;
  private final Map<String, List<Object>> seen = new HashMap<>();

  InstanceWatch(PrintWriter out, OutputOptions output, InstanceRows rows, Clock clock, Pause pause) {
    this.out = out;
    this.output = output;
    this.rows = rows;
    this.table = new StreamedTable(rows.headers());
    this.clock = clock;
    this.pause = pause;
  }

  InstanceWatch(PrintWriter out, OutputOptions output, InstanceRows rows) {
    this(out, output, rows, Clock.systemUTC(), d -> Thread.sleep(d.toMillis()));
  }

  /**
   * Prints {@code first} (what the command without {@code -w} would list), then polls and prints what is new or
   * changed until {@code done} says so of a poll's instances or {@code until} has passed (null: until the process is
   * stopped, Ctrl-C).
   *
   * @return the instances of the last poll
   */
  List<InstanceDocument> follow(List<InstanceDocument> first, Poll poll, Predicate<List<InstanceDocument>> done,
      Instant until) {
    List<InstanceDocument> current = first;
    print(changed(current));
    while (!done.test(current)) {
      Instant asked = clock.instant();
      Duration ask = INTERVAL;
      if (until != null) {
        Duration left = Duration.between(asked, until);
        if (left.toMillis() < 1) {
          break;
        }
        ask = left.compareTo(INTERVAL) < 0 ? left : INTERVAL;
      }
      current = poll.next(ask);
      print(changed(current));
      Duration rest = ask.minus(Duration.between(asked, clock.instant()));
      if (!done.test(current) && rest.toMillis() > 0) {
        try {
          pause.pause(rest);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new CliException(ExitCodes.SERVER_ERROR, "interrupted");
        }
      }
    }
    return current;
  }

  /** The instances not seen before or whose state has changed since; remembers them as they are now. */
  private List<InstanceDocument> changed(List<InstanceDocument> instances) {
    List<InstanceDocument> changed = new ArrayList<>();
    for (InstanceDocument i : instances) {
      List<Object> state = InstanceRows.state(i);
      if (!Objects.equals(seen.put(i.id(), state), state)) {
        changed.add(i);
      }
    }
    return changed;
  }

  private void print(List<InstanceDocument> instances) {
    if (instances.isEmpty()) {
      return;
    }
    if (output.isDocument()) {
      instances.forEach(i -> Documents.print(out, output.format(), i));
    } else if (output.isName()) {
      instances.forEach(i -> out.println(InstanceRows.name(i)));
    } else {
      Instant now = clock.instant();
      table.print(out, instances.stream().map(i -> rows.cells(i, now)).toList());
    }
    out.flush();
  }
}
