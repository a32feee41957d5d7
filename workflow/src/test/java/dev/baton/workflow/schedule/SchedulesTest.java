package dev.baton.workflow.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.api.v1alpha1.Overlap;
import dev.baton.api.v1alpha1.ScheduleSpec;
import dev.baton.api.validation.Problem;
import dev.baton.api.validation.Validated;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SchedulesTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static List<ScheduleSpec> specs(String yaml) {
    try {
      return YAML.readValue(yaml, new TypeReference<List<ScheduleSpec>>() {});
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  static Schedule one(String yaml) {
    Validated<List<Schedule>> parsed = Schedules.parse(specs(yaml));
    assertThat(parsed.problems()).isEmpty();
    return parsed.value().get(0);
  }

  @Test
  void aCronScheduleTakesItsZoneAndTheDefaults() {
    Schedule s = one("[{name: nightly, cron: '0 2 * * *', timeZone: Europe/Berlin, input: {full: true}}]");

    assertThat(s.name()).isEqualTo("nightly");
    assertThat(s.overlap()).isEqualTo(Overlap.Skip);
    assertThat(s.catchupWindow()).isEqualTo(Duration.ofMinutes(1));
    assertThat(s.inputJson()).isEqualTo("{\"full\":true}");
    // 02:00 in Berlin is 01:00 UTC in winter.
    assertThat(s.timing().firstAfter(Instant.parse("2026-12-05T12:00:00Z")))
        .contains(Instant.parse("2026-12-06T01:00:00Z"));
  }

  @Test
  void anIntervalFiresAtItsMultiplesSinceTheEpochSoEveryRuntimeAgrees() {
    Schedule s = one("[{name: heartbeat, every: 30s, overlap: Allow, catchupWindow: 10m}]");

    assertThat(s.inputJson()).isEqualTo("{}");
    assertThat(s.timing().firstAfter(Instant.parse("2026-12-05T12:00:07Z")))
        .contains(Instant.parse("2026-12-05T12:00:30Z"));
    assertThat(s.timing().firstAfter(Instant.parse("2026-12-05T12:00:30Z")))
        .contains(Instant.parse("2026-12-05T12:01:00Z"));
    assertThat(s.timing().lastBefore(Instant.parse("2026-12-05T12:00:30Z")))
        .contains(Instant.parse("2026-12-05T12:00:00Z"));
  }

  @Test
  void aFireTheClockChangeSkipsDoesNotHappenAndOneItRepeatsHappensOnce() {
    Schedule s = one("[{name: half-past-two, cron: '30 2 * * *', timeZone: Europe/Berlin}]");

    // 2026-03-29: 02:00 becomes 03:00 in Berlin, there is no 02:30.
    assertThat(s.timing().firstAfter(Instant.parse("2026-03-28T12:00:00Z")))
        .contains(Instant.parse("2026-03-30T00:30:00Z"));
    // 2026-10-25: 03:00 becomes 02:00 again, 02:30 happens twice on the wall; the schedule fires once.
    Instant first = s.timing().firstAfter(Instant.parse("2026-10-24T12:00:00Z")).orElseThrow();
    assertThat(first).isEqualTo(Instant.parse("2026-10-25T00:30:00Z"));
    assertThat(s.timing().firstAfter(first)).contains(Instant.parse("2026-10-26T01:30:00Z"));
  }

  @Test
  void theBusinessKeyIsTheNameAndTheFireTimeInUtc() {
    assertThat(Schedule.businessKey("nightly", Instant.parse("2026-12-06T01:00:00Z")))
        .isEqualTo("nightly@2026-12-06T01:00:00Z");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      [{name: a, cron: '0 2 * * *', every: 1h}]              | spec.schedules[0] (schedule 'a'): set exactly one of cron and every
      [{name: a}]                                            | spec.schedules[0] (schedule 'a'): set exactly one of cron and every
      [{name: a, cron: '0 2 * *'}]                           | spec.schedules[0].cron (schedule 'a'): '0 2 * *' is not a Unix cron expression
      [{name: a, cron: '0 0 2 * * *'}]                       | spec.schedules[0].cron (schedule 'a'): '0 0 2 * * *' is not a Unix cron expression
      [{name: a, cron: '61 2 * * *'}]                        | spec.schedules[0].cron (schedule 'a'): '61 2 * * *' is not a Unix cron expression
      [{name: a, cron: '0 2 * * *', timeZone: Mars/Olympus}] | spec.schedules[0].timeZone (schedule 'a'): 'Mars/Olympus' is not an IANA time zone
      [{name: a, every: 500ms}]                              | spec.schedules[0].every (schedule 'a'): '500ms' is shorter than 1s
      [{name: a, every: soon}]                               | spec.schedules[0].every (schedule 'a'): 'soon' is not a duration
      [{name: a, every: 1h, timeZone: UTC}]                  | spec.schedules[0].timeZone (schedule 'a'): applies to cron only
      [{name: a, every: 1h, catchupWindow: later}]           | spec.schedules[0].catchupWindow (schedule 'a'): 'later' is not a duration
      [{name: a, every: 1h, input: [1, 2]}]                  | spec.schedules[0].input (schedule 'a'): must be a JSON object, not array
      [{name: a, every: 1h}, {name: a, every: 2h}]           | spec.schedules[1].name: a second schedule named 'a'
      [{name: A.b, every: 1h}]                               | spec.schedules[0].name 'A.b' is not a valid name
      """)
  void aScheduleThatCannotFireSaysWhichFieldToFix(String yaml, String problem) {
    Validated<List<Schedule>> parsed = Schedules.parse(specs(yaml));

    assertThat(parsed.isValid()).isFalse();
    assertThat(parsed.problems()).extracting(Problem::message).anySatisfy(m -> assertThat(m).startsWith(problem));
  }
}
