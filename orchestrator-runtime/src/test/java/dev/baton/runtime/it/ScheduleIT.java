package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.it.TestWorker.Reply;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Schedules on the real broker and database: each fire starts exactly one instance, business key
 * {@code <schedule>@<fire time>}, with two runtimes looking at once and one of them killed with SIGKILL while fires
 * happen every second; Skip and BufferOne while the previous instance runs; where each schedule stands, in the counts
 * the operator copies into the Workflow's status; changing schedules or paused makes no new revision; the rows of
 * removed schedules and deleted Workflows are forgotten.
 */
class ScheduleIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("schedule");
  }

  @AfterEach
  void stopRuntime() {
    h.stopRuntime();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** The fire times of the instances the schedule started, oldest first. */
  static List<Instant> fires(String workflow, String schedule) throws Exception {
    List<Instant> fires = new ArrayList<>();
    try (var c = h.database.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT business_key FROM workflow_instance WHERE workflow = '" + workflow
            + "' AND business_key LIKE '" + schedule + "@%' ORDER BY business_key")) {
      while (rs.next()) {
        fires.add(Instant.parse(rs.getString(1).substring(schedule.length() + 1)));
      }
    }
    return fires;
  }

  @Test
  void twoRuntimesStartEveryFireOnceAndAKilledOneLosesNone() throws Exception {
    h.apply("heartbeat", yaml("""
        {entity: beat, schedules: [{name: tick, every: 1s, overlap: Allow, input: {from: schedule}}],
         steps: [{name: record, service: sch-pulse, command: record}]}
        """));
    TestWorker w = h.worker().serve("q.sch-pulse.record", "sch-pulse", "record", c -> Reply.success(null));
    h.startRuntime();
    Process other = h.launch("schedule-runtime-1");
    Process second;
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> fires("heartbeat", "tick").size() >= 5);
      other.destroyForcibly(); // SIGKILL, possibly inside a look: its transaction never commits
      assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
      int beforeRestart = fires("heartbeat", "tick").size();
      second = h.launch("schedule-runtime-2");
      await().atMost(Duration.ofSeconds(60)).until(() -> fires("heartbeat", "tick").size() >= beforeRestart + 5);
    } finally {
      other.destroyForcibly();
    }
    try {
      List<Instant> fires = fires("heartbeat", "tick");
      // Every second from the first fire to the last, each once: none lost to the kill, none started twice.
      for (int i = 1; i < fires.size(); i++) {
        assertThat(Duration.between(fires.get(i - 1), fires.get(i))).as("after fire %s", fires.get(i - 1))
            .isEqualTo(Duration.ofSeconds(1));
      }
      assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE workflow = 'heartbeat'"))
          .isEqualTo(fires.size());
      assertThat(h.scalar("SELECT input::text FROM workflow_instance WHERE workflow = 'heartbeat' LIMIT 1"))
          .isEqualTo("{\"from\": \"schedule\"}");
      assertThat(h.scalar("SELECT created_by || ' ' || a.detail FROM instance_audit a JOIN workflow_instance i"
          + " ON i.id = a.instance_id WHERE i.workflow = 'heartbeat' LIMIT 1")).isEqualTo("schedule tick");
      await().atMost(Duration.ofSeconds(30)).until(() -> w.ledger().size() >= fires.size());
    } finally {
      second.destroy();
      if (!second.waitFor(30, TimeUnit.SECONDS)) {
        second.destroyForcibly();
      }
    }
  }

  @Test
  void skipStartsNothingWhileThePreviousInstanceRunsAndBufferOneStartsTheFirstWaitingFireAfterIt() throws Exception {
    h.apply("gated", yaml("""
        {entity: gate, schedules: [
           {name: skip, every: 1s},
           {name: buffer, every: 1s, overlap: BufferOne, input: {buffered: true}}],
         steps: [{name: hold, wait: {signal: go}}]}
        """));
    h.startRuntime();
    await().atMost(Duration.ofSeconds(30)).until(() -> fires("gated", "skip").size() == 1
        && fires("gated", "buffer").size() == 1);
    // Both first instances wait for their signal; later fires are skipped, or one is buffered.
    await().atMost(Duration.ofSeconds(30)).until(() -> h.count("SELECT skipped FROM schedule_state"
        + " WHERE workflow = 'gated' AND schedule = 'skip'") >= 3);
    assertThat(fires("gated", "skip")).hasSize(1);
    assertThat(fires("gated", "buffer")).hasSize(1);
    Instant buffered = Instant.parse(h.scalar("SELECT to_char(buffered_fire AT TIME ZONE 'UTC',"
        + " 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM schedule_state WHERE workflow = 'gated' AND schedule = 'buffer'"));
    assertThat(buffered).isAfter(fires("gated", "buffer").get(0));

    JsonNode counts = h.get("/api/v1/counts").json();
    JsonNode gated = null;
    for (JsonNode item : counts.get("items")) {
      if (item.get("workflow").asText().equals("gated")) {
        gated = item;
      }
    }
    assertThat(gated).as("counts of gated: %s", counts).isNotNull();
    assertThat(gated.get("schedules")).hasSize(2);
    assertThat(gated.get("schedules").get(0).get("name").asText()).isEqualTo("buffer");
    assertThat(gated.get("schedules").get(0).get("bufferedFire").asText()).isEqualTo(buffered.toString());
    assertThat(Instant.parse(gated.get("schedules").get(1).get("nextFire").asText())).isAfter(Instant.now()
        .minusSeconds(5));

    UUID bufferFirst = UUID.fromString(h.scalar("SELECT id FROM workflow_instance WHERE business_key = 'buffer@"
        + fires("gated", "buffer").get(0) + "'"));
    assertThat(h.post("/api/v1/instances/" + bufferFirst + "/signals/go", "{}").status()).isEqualTo(202);
    h.awaitStatus(bufferFirst, "SUCCEEDED", Duration.ofSeconds(30));
    // The buffered fire starts next, under its own (earlier) time; then the schedule waits for it in turn.
    await().atMost(Duration.ofSeconds(30)).until(() -> fires("gated", "buffer").size() == 2);
    assertThat(fires("gated", "buffer").get(1)).isEqualTo(buffered);
    assertThat(h.scalar("SELECT input::text FROM workflow_instance WHERE business_key = 'buffer@" + buffered + "'"))
        .isEqualTo("{\"buffered\": true}");
  }

  @Test
  void changingTheSchedulesOrPausedMakesNoNewRevision() throws Exception {
    String steps = "steps: [{name: note, service: sch-notes, command: note}]";
    h.apply("revisions", yaml("{entity: note, " + steps + "}"));
    h.startRuntime();
    h.startOk("revisions", "before");
    h.apply("revisions", yaml("{entity: note, paused: false, schedules: [{name: hourly, cron: '0 * * * *'}], "
        + steps + "}"));
    await().atMost(Duration.ofSeconds(30)).until(() -> h.count("SELECT count(*) FROM schedule_state"
        + " WHERE workflow = 'revisions' AND next_fire IS NOT NULL") == 1);
    h.startOk("revisions", "after");
    assertThat(h.count("SELECT count(DISTINCT revision) FROM workflow_instance WHERE workflow = 'revisions'"))
        .isEqualTo(1);
    assertThat(h.count("SELECT count(*) FROM workflow_definition WHERE name = 'revisions'")).isEqualTo(1);

    h.apply("revisions", yaml("{entity: note, " + steps + "}"));
    await().atMost(Duration.ofSeconds(30)).until(() -> h.count("SELECT count(*) FROM schedule_state"
        + " WHERE workflow = 'revisions'") == 0);

    // A deleted Workflow's schedules are forgotten too.
    h.apply("revisions", yaml("{entity: note, schedules: [{name: hourly, cron: '0 * * * *'}], " + steps + "}"));
    await().atMost(Duration.ofSeconds(30)).until(() -> h.count("SELECT count(*) FROM schedule_state"
        + " WHERE workflow = 'revisions'") == 1);
    h.client.resources(dev.baton.api.v1alpha1.Workflow.class).inNamespace(RuntimeHarness.NS).withName("revisions")
        .delete();
    await().atMost(Duration.ofSeconds(30)).until(() -> h.count("SELECT count(*) FROM schedule_state"
        + " WHERE workflow = 'revisions'") == 0);
  }
}
