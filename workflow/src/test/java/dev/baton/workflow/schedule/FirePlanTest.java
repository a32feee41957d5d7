package dev.baton.workflow.schedule;

import static dev.baton.workflow.schedule.SchedulesTest.one;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.workflow.schedule.FirePlan.Standing;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FirePlanTest {

  static final Instant SEEN = Instant.parse("2026-12-05T12:00:00Z");

  static Instant at(String time) {
    return Instant.parse("2026-12-05T" + time + "Z");
  }

  @Test
  void nothingIsDueBeforeTheFirstFire() {
    FirePlan plan = FirePlan.decide(one("[{name: s, every: 1m}]"), new Standing(SEEN, null, false), at("12:00:59"));

    assertThat(plan.starts()).isEmpty();
    assertThat(plan.lastFire()).isEqualTo(SEEN);
    assertThat(plan.nextFire()).isEqualTo(at("12:01:00"));
  }

  @Test
  void aDueFireStartsOnceAndTheNextIsTheFollowingOne() {
    FirePlan plan = FirePlan.decide(one("[{name: s, every: 1m}]"), new Standing(SEEN, null, false), at("12:01:00.5"));

    assertThat(plan.starts()).containsExactly(at("12:01:00"));
    assertThat(plan.lastFire()).isEqualTo(at("12:01:00"));
    assertThat(plan.nextFire()).isEqualTo(at("12:02:00"));

    FirePlan again = FirePlan.decide(one("[{name: s, every: 1m}]"),
        new Standing(plan.lastFire(), null, true), at("12:01:01"));
    assertThat(again.starts()).as("the same fire looked at again").isEmpty();
  }

  @Test
  void skipLeavesAFireOutWhileThePreviousInstanceRuns() {
    FirePlan plan = FirePlan.decide(one("[{name: s, every: 1m}]"), new Standing(SEEN, null, true), at("12:01:00"));

    assertThat(plan.starts()).isEmpty();
    assertThat(plan.skipped()).isEqualTo(1);
    assertThat(plan.lastFire()).isEqualTo(at("12:01:00"));
  }

  @Test
  void allowStartsBesideTheRunningInstance() {
    FirePlan plan = FirePlan.decide(one("[{name: s, every: 1m, overlap: Allow}]"), new Standing(SEEN, null, true),
        at("12:01:00"));

    assertThat(plan.starts()).containsExactly(at("12:01:00"));
  }

  @Test
  void bufferOneKeepsTheFirstFireForWhenTheRunningOneEndsAndSkipsTheRest() {
    var schedule = one("[{name: s, every: 1m, overlap: BufferOne, catchupWindow: 1h}]");
    FirePlan plan = FirePlan.decide(schedule, new Standing(SEEN, null, true), at("12:03:00"));

    assertThat(plan.starts()).isEmpty();
    assertThat(plan.bufferedFire()).isEqualTo(at("12:01:00"));
    assertThat(plan.skipped()).isEqualTo(2);

    FirePlan ended = FirePlan.decide(schedule, new Standing(plan.lastFire(), plan.bufferedFire(), false),
        at("12:03:30"));
    assertThat(ended.starts()).containsExactly(at("12:01:00"));
    assertThat(ended.bufferedFire()).isNull();
  }

  @Test
  void firesOlderThanTheCatchupWindowAreMissedAndTheRecentOnesStart() {
    var schedule = one("[{name: s, every: 1m, overlap: Allow, catchupWindow: 2m}]");
    FirePlan plan = FirePlan.decide(schedule, new Standing(SEEN, null, false), at("12:10:30"));

    assertThat(plan.missed()).isEqualTo(8); // 12:01 .. 12:08
    assertThat(plan.starts()).containsExactly(at("12:09:00"), at("12:10:00"));
    assertThat(plan.lastFire()).isEqualTo(at("12:10:00"));
  }

  @Test
  void aLongOutagePassesOverItsMissedFiresInOneLook() {
    var schedule = one("[{name: s, every: 1s}]");
    Instant dayLater = SEEN.plusSeconds(86_400);
    FirePlan plan = FirePlan.decide(schedule, new Standing(SEEN, null, false), dayLater.plusMillis(500));

    assertThat(plan.missed()).isEqualTo(FirePlan.MOST_FIRES_PER_LOOK);
    // Within the minute of catch-up, Skip starts the oldest and skips the others.
    assertThat(plan.starts()).containsExactly(dayLater.minusSeconds(59));
    assertThat(plan.lastFire()).isEqualTo(dayLater);
    assertThat(plan.nextFire()).isEqualTo(dayLater.plusSeconds(1));
  }

  @Test
  void aLookHandlesABoundedNumberOfFiresAndLeavesTheRestDue() {
    var schedule = one("[{name: s, every: 1s, overlap: Allow, catchupWindow: 1h}]");
    Instant now = SEEN.plusSeconds(300);
    FirePlan plan = FirePlan.decide(schedule, new Standing(SEEN, null, false), now);

    assertThat(plan.starts()).hasSize(FirePlan.MOST_FIRES_PER_LOOK);
    assertThat(plan.lastFire()).isEqualTo(SEEN.plusSeconds(FirePlan.MOST_FIRES_PER_LOOK));
    assertThat(plan.nextFire()).as("still due").isBefore(now);
  }

  @Test
  void aCronScheduleFiresAtItsLocalTime() {
    var schedule = one("[{name: nightly, cron: '0 2 * * *', timeZone: Europe/Berlin}]");
    FirePlan plan = FirePlan.decide(schedule, new Standing(at("00:00:00"), null, false), at("01:00:02"));

    assertThat(plan.starts()).containsExactly(at("01:00:00"));
    assertThat(schedule.businessKey(plan.starts().get(0))).isEqualTo("nightly@2026-12-05T01:00:00Z");
    assertThat(plan.nextFire()).isEqualTo(Instant.parse("2026-12-06T01:00:00Z"));
  }
}
