package dev.baton.cli.instances;

import dev.baton.cli.support.Table;
import dev.baton.cli.support.Times;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.LastError;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The columns of a listing of instances ({@code get}, {@code search}): ID, WORKFLOW, BUSINESS KEY, STATUS, STEP, ATTEMPT
 * and AGE; NAMESPACE first with {@code -A}; with {@code -o wide} also REVISION, STARTED and ENDED (clock times, the
 * date when not today), CREATED BY and LAST ERROR (the step and code of the last error).
 *
 * @param namespace whether the rows come from every namespace ({@code -A})
 * @param wide whether {@code -o wide} asked for the extra columns
 */
record InstanceRows(boolean namespace, boolean wide) {

  private static final String KIND = "instance/";
  private static final List<String> COLUMNS = List.of("ID", "WORKFLOW", "BUSINESS KEY", "STATUS", "STEP", "ATTEMPT",
      "AGE");
  private static final List<String> WIDE_COLUMNS = List.of("REVISION", "STARTED", "ENDED", "CREATED BY",
      "LAST ERROR");

  /** {@code kind/name} of an instance for {@code -o name}: what {@code baton describe} takes after the slash. */
  static String name(InstanceDocument i) {
    return name(i.id());
  }

  static String name(String id) {
    return KIND + id;
  }

  /** The id in what a user typed: an id, or {@code instance/<id>} as {@code -o name} prints it. */
  static String id(String typed) {
    return typed.startsWith(KIND) ? typed.substring(KIND.length()) : typed;
  }

  /** Whether a user typed {@code instance/<id>}. */
  static boolean isName(String typed) {
    return typed.startsWith(KIND);
  }

  String[] headers() {
    List<String> h = new ArrayList<>();
    if (namespace) {
      h.add("NAMESPACE");
    }
    h.addAll(COLUMNS);
    if (wide) {
      h.addAll(WIDE_COLUMNS);
    }
    return h.toArray(String[]::new);
  }

  Object[] cells(InstanceDocument i, Instant now) {
    List<Object> c = new ArrayList<>();
    if (namespace) {
      c.add(i.namespace());
    }
    c.addAll(Arrays.asList(i.id(), i.workflow(), i.businessKey(), i.status(), Instances.step(i), i.attempt(),
        Times.age(i.createdAt(), now)));
    if (wide) {
      c.addAll(Arrays.asList(i.revision() > 0 ? i.revision() : "", Times.clockOrDate(i.createdAt(), now),
          Times.clockOrDate(i.finishedAt(), now), i.createdBy(), lastError(i.lastError())));
    }
    return c.toArray();
  }

  Table table(Iterable<InstanceDocument> instances, Instant now) {
    Table t = new Table(headers());
    instances.forEach(i -> t.row(cells(i, now)));
    return t;
  }

  /** What a watch compares to tell a changed row: where the instance is and how it ended, not its age. */
  static List<Object> state(InstanceDocument i) {
    return Arrays.asList(i.status(), i.currentStep(), i.attempt(), i.finishedAt(),
        i.lastError() == null ? null : i.lastError().at());
  }

  private static String lastError(LastError e) {
    if (e == null) {
      return "";
    }
    String step = e.step() == null ? "" : Instances.undone(e.step());
    String code = e.errorCode() == null ? "" : e.errorCode();
    return step.isEmpty() ? code : step + ": " + code;
  }
}
