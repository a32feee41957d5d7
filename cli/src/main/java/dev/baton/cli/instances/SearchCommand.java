package dev.baton.cli.instances;

import dev.baton.cli.support.Documents;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.OutputOptions;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.InstanceList;
import dev.baton.httpapi.InstanceQuery;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton search [<workflow>] [filters]}: instances across Workflows (and namespaces, with {@code -A}), newest
 * first, a page at a time ({@code GET /api/v1/instances}); the next page's command is printed under the table.
 */
@Command(name = "search", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Finds instances by status, business key prefix, the step and error code of their last error, and"
        + " when they started; newest first, a page at a time."},
    footer = {"%nExamples:",
        "  baton search order-fulfilment --status FAILED --step charge --error-code CARD_DECLINED --since 24h",
        "  baton search -A --key-prefix order-42",
        "  baton search --status RUNNING --limit 100 -o json",
        "  baton search -A --status FAILED -o name | xargs -n1 baton retry",
        "  baton search order-fulfilment --status RUNNING -w   # new and changed rows until Ctrl-C"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
public final class SearchCommand implements Callable<Integer> {

  @Parameters(arity = "0..1", paramLabel = "<workflow>", description = "Only instances of this Workflow.")
  String workflow;

  @Mixin SearchFilters filters;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "50",
      description = "Instances per page (1 to " + InstanceQuery.MAX_LIMIT + ").")
  int limit;

  @Option(names = "--cursor", paramLabel = "CURSOR", description = "The page after the one that printed it.")
  String cursor;

  @Mixin WatchOption watch;
  @Mixin NamespaceOption namespace;
  @Mixin RuntimeOptions runtime;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (limit < 1 || limit > InstanceQuery.MAX_LIMIT) {
      throw new ParameterException(spec.commandLine(), "--limit must be from 1 to " + InstanceQuery.MAX_LIMIT
          + ", got " + limit);
    }
    RuntimeClient client = runtime.client();
    Instant now = Instant.now();
    String path = query(now).path();
    InstanceList page = client.get(path, InstanceList.class);
    var out = spec.commandLine().getOut();
    InstanceRows rows = new InstanceRows(filters.allNamespaces(), output.isWide());
    List<InstanceDocument> items = page.items() == null ? List.of() : page.items();
    if (watch.watch) {
      if (items.isEmpty()) {
        spec.commandLine().getErr().println("No instances match yet. Watching for them (Ctrl-C to stop).");
        spec.commandLine().getErr().flush();
      }
      new InstanceWatch(out, output, rows).follow(items, interval -> {
        List<InstanceDocument> next = client.get(path, InstanceList.class).items();
        return next == null ? List.of() : next;
      }, all -> false, null);
      return ExitCodes.OK;
    }
    if (output.isDocument()) {
      Documents.print(out, output.format(), page);
    } else if (output.isName()) {
      items.forEach(i -> out.println(InstanceRows.name(i)));
    } else if (items.isEmpty()) {
      out.println("No instances match.");
    } else {
      rows.table(items, now).print(out);
    }
    out.flush();
    if (page.nextCursor() != null && !output.isDocument()) {
      var err = spec.commandLine().getErr();
      err.println("More: run again with --cursor " + page.nextCursor());
      err.flush();
    }
    return ExitCodes.OK;
  }

  /** The search these options ask for, with {@code --since}/{@code --until} read against {@code now}. */
  InstanceQuery query(Instant now) {
    java.util.Map<String, String> p = filters.fields(namespace.namespace(), workflow, now, spec);
    p.put("limit", Integer.toString(limit));
    if (cursor != null) {
      p.put("cursor", cursor);
    }
    return InstanceQuery.parse(java.util.Set.of(), p::get);
  }
}
