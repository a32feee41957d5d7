package dev.baton.cli.instances;

import dev.baton.contract.BatonDuration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The search's filters as options ({@code baton search}, {@code baton bulk}): the query's fields, set ones only. */
public final class SearchFilters {

  @Mixin AllNamespacesOption allNamespaces;

  @Option(names = "--status", paramLabel = "STATUS",
      description = "Only instances in this status: ${COMPLETION-CANDIDATES}.")
  GetCommand.Status status;

  @Option(names = "--key-prefix", paramLabel = "PREFIX", description = "Only business keys that begin with it.")
  String keyPrefix;

  @Option(names = "--step", paramLabel = "STEP", description = "Only instances whose last error is at this step, or"
      + " that are at it now.")
  String step;

  @Option(names = "--error-code", paramLabel = "CODE", description = "Only instances whose last error has this code.")
  String errorCode;

  @Option(names = "--since", paramLabel = "WHEN", description = "Only instances started since then: a duration ago"
      + " (24h, 30m) or an RFC 3339 time.")
  String since;

  @Option(names = "--until", paramLabel = "WHEN", description = "Only instances started before then: a duration ago"
      + " or an RFC 3339 time.")
  String until;

  /**
   * The search's fields these options and the namespace and workflow set, in the API's names, {@code --since} and
   * {@code --until} read against {@code now}.
   */
  Map<String, String> fields(String namespace, String workflow, Instant now, CommandSpec spec) {
    Map<String, String> f = new LinkedHashMap<>();
    put(f, "namespace", allNamespaces.all() ? null : namespace);
    put(f, "workflow", workflow);
    put(f, "status", status == null ? null : status.name());
    put(f, "businessKeyPrefix", keyPrefix);
    put(f, "step", step);
    put(f, "errorCode", errorCode);
    put(f, "createdAfter", when("--since", since, now, spec));
    put(f, "createdBefore", when("--until", until, now, spec));
    return f;
  }

  /** {@code -A}: the search's instances come from every namespace. */
  boolean allNamespaces() {
    return allNamespaces.all();
  }

  private static void put(Map<String, String> f, String name, String value) {
    if (value != null) {
      f.put(name, value);
    }
  }

  private static String when(String option, String text, Instant now, CommandSpec spec) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text).toString();
    } catch (DateTimeParseException notATime) {
      try {
        return now.minus(BatonDuration.parse(text).toDuration()).toString();
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), option + " '" + text + "' is neither a duration (24h, 30m)"
            + " nor an RFC 3339 time");
      }
    }
  }
}
