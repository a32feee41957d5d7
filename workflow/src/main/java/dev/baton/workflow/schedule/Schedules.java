package dev.baton.workflow.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.v1alpha1.Overlap;
import dev.baton.api.v1alpha1.ScheduleSpec;
import dev.baton.api.validation.Problem;
import dev.baton.api.validation.Validated;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.Names;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The one parse of a Workflow's {@code spec.schedules}: each schedule checked (exactly one of cron and every, a cron
 * expression of five fields, a known time zone, an interval of at least a second, an object as input) and its
 * defaults applied. Pure; the operator reports its problems as InvalidSpec, the runtime fires what it returns.
 */
public final class Schedules {

  /** The shortest interval {@code every} may say. */
  public static final Duration SHORTEST_INTERVAL = Duration.ofSeconds(1);

  private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

  private Schedules() {}

  public static Validated<List<Schedule>> parse(List<ScheduleSpec> specs) {
    List<Problem> problems = new ArrayList<>();
    List<Schedule> schedules = new ArrayList<>();
    Set<String> names = new HashSet<>();
    List<ScheduleSpec> all = specs == null ? List.of() : specs;
    for (int i = 0; i < all.size(); i++) {
      ScheduleSpec spec = all.get(i);
      String at = "spec.schedules[" + i + "]";
      if (spec == null) {
        problems.add(Problem.invalid(at + " is empty: give it a name and a cron or every"));
        continue;
      }
      int before = problems.size();
      String name = spec.getName();
      if (!Names.isValidToken(name)) {
        problems.add(Problem.invalid(at + ".name '" + name + "' is not a valid name: lowercase letters, digits, '_' "
            + "and '-'"));
      } else if (!names.add(name)) {
        problems.add(Problem.invalid(at + ".name: a second schedule named '" + name + "'"));
      }
      Field field = new Field(at, name);
      Schedule.Timing timing = timing(spec, field, problems);
      Duration catchup = spec.getCatchupWindow() == null ? Schedule.DEFAULT_CATCHUP_WINDOW
          : duration(field, "catchupWindow", spec.getCatchupWindow(), problems);
      JsonNode input = spec.getInput();
      if (input != null && !input.isObject()) {
        problems.add(field.problem("input", "must be a JSON object, not " + input.getNodeType().toString()
            .toLowerCase()));
      }
      if (problems.size() == before) {
        schedules.add(new Schedule(name, timing, input == null ? "{}" : input.toString(),
            spec.getOverlap() == null ? Overlap.Skip : spec.getOverlap(), catchup));
      }
    }
    return Validated.of(problems, () -> List.copyOf(schedules));
  }

  /** A field of one schedule, named in problems as {@code spec.schedules[1].cron (schedule 'nightly'): ...}. */
  private record Field(String at, String schedule) {
    Problem problem(String field, String what) {
      return Problem.invalid(at + (field == null ? "" : "." + field) + " (schedule '" + schedule + "'): " + what);
    }
  }

  private static Schedule.Timing timing(ScheduleSpec spec, Field at, List<Problem> problems) {
    if ((spec.getCron() == null) == (spec.getEvery() == null)) {
      problems.add(at.problem(null, "set exactly one of cron and every"));
      return null;
    }
    if (spec.getEvery() != null) {
      if (spec.getTimeZone() != null) {
        problems.add(at.problem("timeZone", "applies to cron only; every counts from 1970-01-01T00:00:00Z"));
      }
      Duration interval = duration(at, "every", spec.getEvery(), problems);
      if (interval != null && interval.compareTo(SHORTEST_INTERVAL) < 0) {
        problems.add(at.problem("every", "'" + spec.getEvery() + "' is shorter than 1s"));
        return null;
      }
      return interval == null ? null : new Schedule.Every(interval);
    }
    ZoneId zone = ZoneOffset.UTC;
    if (spec.getTimeZone() != null) {
      try {
        zone = ZoneId.of(spec.getTimeZone());
      } catch (DateTimeException e) {
        problems.add(at.problem("timeZone", "'" + spec.getTimeZone() + "' is not an IANA time zone, e.g. "
            + "Europe/Berlin or UTC"));
        return null;
      }
    }
    try {
      com.cronutils.model.Cron cron = UNIX.parse(spec.getCron().trim()).validate();
      return new Schedule.Cron(spec.getCron().trim(), zone, ExecutionTime.forCron(cron));
    } catch (IllegalArgumentException e) {
      problems.add(at.problem("cron", "'" + spec.getCron() + "' is not a Unix cron expression of five fields "
          + "(minute hour day-of-month month day-of-week): " + e.getMessage()));
      return null;
    }
  }

  private static Duration duration(Field at, String field, String text, List<Problem> problems) {
    if (!BatonDuration.isValid(text)) {
      problems.add(at.problem(field, "'" + text + "' is not a duration such as 30s, 10m or 1h"));
      return null;
    }
    return BatonDuration.parse(text).toDuration();
  }
}
