package dev.baton.cli.instances;

import dev.baton.cli.support.CliException;
import dev.baton.cli.support.Documents;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.OutputOptions;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.Health;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.InstanceList;
import dev.baton.httpapi.InstanceQuery;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton get [<workflow>] [filters]} lists instances; {@code baton get instance <id>} shows one. */
@Command(name = "get", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {"Lists the instances of a workflow, newest first, or of every workflow the runtime runs when none"
        + " is named. `get instance <id>` shows one instance (use describe for its timeline)."},
    footer = {"%nExamples:",
        "  baton get order-fulfilment --status FAILED",
        "  baton get order-fulfilment --business-key order-1 -o json",
        "  baton get instance 3f2b8c1e-5d0a-4c39-9a51-0f1e2d3c4b5a",
        "  baton get instance 3f2b8c1e-5d0a-4c39-9a51-0f1e2d3c4b5a --wait=5m   # exits 0 once it SUCCEEDED",
        "  baton get instance 3f2b8c1e-5d0a-4c39-9a51-0f1e2d3c4b5a -w   # a row per change until it ends",
        "  baton get -A --status RUNNING -o wide -w"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_WAIT_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE,
        ExitCodes.HELP_FAILED, ExitCodes.HELP_COMPENSATED, ExitCodes.HELP_CANCELLED, ExitCodes.HELP_STILL_RUNNING})
public final class GetCommand implements Callable<Integer> {

  static final int MAX_LIMIT = 500;

  /** The statuses of docs/design.md#interfaces, checked here so that a typo is a usage error. */
  enum Status { RUNNING, SUCCEEDED, FAILED, COMPENSATING, COMPENSATED, CANCELLED }

  @Parameters(arity = "0..2", paramLabel = "<workflow> | instance <id>",
      description = "A Workflow name (none: every workflow), or `instance` and an instance id (or instance/<id>).")
  List<String> args = new ArrayList<>();

  @Option(names = "--status", paramLabel = "STATUS", description = "Only instances in this status: ${COMPLETION-CANDIDATES}.")
  Status status;

  @Option(names = {"-k", "--business-key"}, paramLabel = "KEY", description = "Only the instance of this business key.")
  String businessKey;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "50",
      description = "At most N instances (1 to " + MAX_LIMIT + ").")
  int limit;

  @Mixin WaitOption waitFor;
  @Mixin WatchOption watch;
  @Mixin NamespaceOption namespace;
  @Mixin AllNamespacesOption allNamespaces;
  @Mixin RuntimeOptions runtime;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (args.size() == 1 && InstanceRows.isName(args.get(0))) { // instance/<id>, as -o name prints it
      return one(InstanceRows.id(args.get(0)));
    }
    if (!args.isEmpty() && args.get(0).equals("instance")) {
      if (args.size() != 2) {
        throw new ParameterException(spec.commandLine(), "get instance needs an instance id: baton get instance <id>");
      }
      return one(args.get(1));
    }
    if (args.size() > 1) {
      throw new ParameterException(spec.commandLine(), "get takes one workflow name (or: get instance <id>), got "
          + String.join(" ", args));
    }
    if (waitFor.asked()) {
      throw new ParameterException(spec.commandLine(), "--wait waits for one instance: baton get instance <id> --wait");
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new ParameterException(spec.commandLine(), "--limit must be from 1 to " + MAX_LIMIT + ", got " + limit);
    }
    RuntimeClient client = runtime.client();
    List<InstanceDocument> items = listing(client);
    var out = spec.commandLine().getOut();
    InstanceRows rows = new InstanceRows(allNamespaces.all(), output.isWide());
    if (watch.watch) {
      if (items.isEmpty()) {
        spec.commandLine().getErr().println(none() + " Watching for them (Ctrl-C to stop).");
        spec.commandLine().getErr().flush();
      }
      new InstanceWatch(out, output, rows).follow(items, interval -> listing(client), all -> false, null);
      return ExitCodes.OK;
    }
    if (output.isDocument()) {
      Documents.print(out, output.format(), InstanceList.of(items));
    } else if (output.isName()) {
      items.forEach(i -> out.println(InstanceRows.name(i)));
    } else if (items.isEmpty()) {
      out.println(none());
    } else {
      rows.table(items, Instant.now()).print(out);
    }
    out.flush();
    return ExitCodes.OK;
  }

  private String none() {
    return "No instances" + (args.isEmpty() ? "" : " of " + (allNamespaces.all() ? "" : namespace.namespace() + "/")
        + args.get(0)) + (status == null && businessKey == null ? "" : " match") + ".";
  }

  /** What the options list, newest first, at most {@code --limit}. */
  private List<InstanceDocument> listing(RuntimeClient client) {
    List<InstanceDocument> items = allNamespaces.all() ? everyNamespace(client)
        : args.isEmpty() ? everyWorkflow(client) : list(client, args.get(0), false);
    items.sort(Comparator.comparing(InstanceDocument::createdAt, Comparator.nullsFirst(Comparator.naturalOrder()))
        .reversed());
    return items.size() > limit ? new ArrayList<>(items.subList(0, limit)) : items;
  }

  private int one(String id) {
    RuntimeClient client = runtime.client();
    InstanceDocument i = client.get(ApiPaths.instance(id), InstanceDocument.class);
    var out = spec.commandLine().getOut();
    if (watch.watch) {
      Instant until = waitFor.asked() ? Instant.now().plus(waitFor.wait) : null;
      i = new InstanceWatch(out, output, new InstanceRows(false, output.isWide()))
          .follow(List.of(i), interval -> List.of(client.getWaiting(ApiPaths.instance(id, interval),
              InstanceDocument.class, interval)), now -> now.get(0).finished(), until).get(0);
      return InstanceWait.exitCode(i, waitFor.asked() ? waitFor.wait : null, "get", spec.commandLine().getErr());
    }
    if (waitFor.asked()) {
      i = InstanceWait.until(client, i, waitFor.wait);
    }
    if (output.isDocument()) {
      Documents.print(out, output.format(), i);
    } else if (output.isName()) {
      out.println(InstanceRows.name(i));
    } else {
      new InstanceRows(false, output.isWide()).table(List.of(i), Instant.now()).print(out);
    }
    out.flush();
    return waitFor.asked() ? InstanceWait.exitCode(i, waitFor.wait, "get", spec.commandLine().getErr())
        : ExitCodes.OK;
  }

  /**
   * {@code -A}: the search across namespaces ({@code GET /api/v1/instances}), which matches a business key by its
   * prefix: {@code -k} asks for the most it may and keeps the exact key.
   */
  private List<InstanceDocument> everyNamespace(RuntimeClient client) {
    String path = new InstanceQuery(null, args.isEmpty() ? null : args.get(0), status == null ? null : status.name(),
        businessKey, null, null, null, null, businessKey == null ? limit : InstanceQuery.MAX_LIMIT, null).path();
    InstanceList page = client.get(path, InstanceList.class);
    List<InstanceDocument> items = new ArrayList<>();
    if (page.items() != null) {
      page.items().stream().filter(i -> businessKey == null || businessKey.equals(i.businessKey()))
          .forEach(items::add);
    }
    return items;
  }

  /** One workflow's instances; {@code quiet}: a workflow unknown in this namespace has none. */
  private List<InstanceDocument> list(RuntimeClient client, String workflow, boolean quiet) {
    String path = ApiPaths.instances(namespace.namespace(), workflow, status == null ? null : status.name(),
        businessKey, limit);
    RuntimeClient.Response<InstanceList> r = client.getAccepting(path, InstanceList.class,
        quiet ? Set.of(404) : Set.of());
    List<InstanceDocument> items = new ArrayList<>();
    if (r.status() == 200 && r.body().items() != null) {
      items.addAll(r.body().items());
    }
    return items;
  }

  /** The runtime says which workflows it consumes on {@code /healthz}; their instances, merged. */
  private List<InstanceDocument> everyWorkflow(RuntimeClient client) {
    Health health = client.getAccepting(ApiPaths.HEALTH, Health.class, Set.of(503)).body();
    Set<String> workflows = new TreeSet<>();
    if (health.consuming() != null) {
      workflows.addAll(health.consuming());
    }
    if (workflows.isEmpty()) {
      throw CliException.server("the runtime at " + client.url() + " runs no workflow yet: apply one"
          + " (kubectl apply -f examples/order-saga/) or name it: baton get <workflow>");
    }
    List<InstanceDocument> items = new ArrayList<>();
    for (String workflow : workflows) {
      items.addAll(list(client, workflow, true));
    }
    return items;
  }
}
