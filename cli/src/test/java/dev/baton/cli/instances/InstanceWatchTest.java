package dev.baton.cli.instances;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.support.Format;
import dev.baton.cli.support.OutputOptions;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.LastError;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code -w}: a row when an instance is new or has changed, none when only its age has; one instance followed until it
 * ends or the wait is over; the rest of each second paused between polls of a listing.
 */
class InstanceWatchTest {

  static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");

  static InstanceDocument instance(String id, String status, String step, int attempt, Instant finished) {
    LastError error = "FAILED".equals(status) ? new LastError(step, "task", "pay", attempt, "FAILED", "CARD_DECLINED",
        "declined", finished) : null;
    return new InstanceDocument(id, "team-a", "orders", 3, "order-" + id, null, status, "FORWARD", step, attempt, T0,
        null, null, error, T0, T0, finished, "alice", null, null, null, null);
  }

  private final StringWriter out = new StringWriter();
  private final List<Duration> pauses = new ArrayList<>();

  private InstanceWatch watch(Format format, InstanceRows rows) {
    return new InstanceWatch(new PrintWriter(out), new OutputOptions(format), rows,
        Clock.fixed(T0.plusSeconds(30), ZoneOffset.UTC), pauses::add);
  }

  /** Polls that answer these listings in turn, then the last one again. */
  @SafeVarargs
  private static InstanceWatch.Poll polls(List<InstanceDocument>... answers) {
    Deque<List<InstanceDocument>> left = new ArrayDeque<>(List.of(answers));
    return interval -> left.size() > 1 ? left.poll() : left.peek();
  }

  @Test
  void oneInstanceIsARowPerChangeOfStepOrAttemptUntilItEnds() {
    InstanceDocument at = instance("a", "RUNNING", "reserve", 1, null);
    List<InstanceDocument> last = watch(Format.table, new InstanceRows(false, false)).follow(List.of(at),
        polls(List.of(at), List.of(instance("a", "RUNNING", "charge", 1, null)),
            List.of(instance("a", "RUNNING", "charge", 2, null)),
            List.of(instance("a", "FAILED", "charge", 2, T0.plusSeconds(20)))),
        now -> now.get(0).finished(), null);

    assertThat(last.get(0).status()).isEqualTo("FAILED");
    assertThat(out.toString().lines().toList()).containsExactly(
        "ID   WORKFLOW   BUSINESS KEY   STATUS    STEP      ATTEMPT   AGE",
        "a    orders     order-a        RUNNING   reserve   1         30s",
        "a    orders     order-a        RUNNING   charge    1         30s",
        "a    orders     order-a        RUNNING   charge    2         30s",
        "a    orders     order-a        FAILED    charge    2         30s");
  }

  @Test
  void aListingPrintsNewAndChangedRowsOnlyAndPausesTheRestOfEachSecond() {
    InstanceDocument a = instance("a", "RUNNING", "reserve", 1, null);
    InstanceDocument b = instance("b", "RUNNING", "reserve", 1, null);
    InstanceDocument aDone = instance("a", "SUCCEEDED", "ship", 1, T0.plusSeconds(9));
    int[] asked = {0};
    InstanceWatch.Poll poll = polls(List.of(a), List.of(b, a), List.of(b, aDone), List.of(b, aDone));
    // a listing never ends by itself; the test stops it after four polls as Ctrl-C would
    watch(Format.wide, new InstanceRows(true, true)).follow(List.of(a), interval -> {
      asked[0]++;
      return poll.next(interval);
    }, now -> asked[0] == 4, null);

    assertThat(out.toString().lines().toList()).containsExactly(
        "NAMESPACE   ID   WORKFLOW   BUSINESS KEY   STATUS    STEP      ATTEMPT   AGE   REVISION   STARTED"
            + "    ENDED   CREATED BY   LAST ERROR",
        "team-a      a    orders     order-a        RUNNING   reserve   1         30s   3          "
            + clock(T0) + "           alice",
        "team-a      b    orders     order-b        RUNNING   reserve   1         30s   3          "
            + clock(T0) + "           alice",
        "team-a      a    orders     order-a        SUCCEEDED   ship      1         30s   3          "
            + clock(T0) + "   " + clock(T0.plusSeconds(9)) + "   alice");
    assertThat(pauses).as("a poll that answers at once waits out the second, but not after the last")
        .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1));
  }

  @Test
  void namesAndDocumentsArePrintedPerChangeToo() {
    InstanceDocument a = instance("a", "RUNNING", "reserve", 1, null);
    watch(Format.name, new InstanceRows(false, false)).follow(List.of(a),
        polls(List.of(a), List.of(instance("a", "CANCELLED", "reserve", 1, T0))), now -> now.get(0).finished(), null);
    assertThat(out.toString().lines().toList()).containsExactly("instance/a", "instance/a");

    out.getBuffer().setLength(0);
    watch(Format.json, new InstanceRows(false, false)).follow(List.of(a),
        polls(List.of(instance("a", "CANCELLED", "reserve", 1, T0))), now -> now.get(0).finished(), null);
    assertThat(out.toString()).contains("\"status\" : \"RUNNING\"", "\"status\" : \"CANCELLED\"");
  }

  @Test
  void aWatchWithAnEndStopsWhenItIsOverThoughTheInstanceRuns() {
    InstanceDocument a = instance("a", "RUNNING", "reserve", 1, null);
    List<InstanceDocument> last = watch(Format.table, new InstanceRows(false, false)).follow(List.of(a),
        polls(List.of(a)), now -> now.get(0).finished(), T0.plusSeconds(30));
    assertThat(last.get(0).finished()).isFalse();
    assertThat(out.toString().lines()).hasSize(2);
  }

  private static String clock(Instant t) {
    return dev.baton.cli.support.Times.clock(t);
  }
}
