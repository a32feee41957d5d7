package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.Json;
import dev.baton.cli.support.OutputOptions;
import dev.baton.cli.support.CliException;
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
        "  baton get instance 3f2b8c1e-5d0a-4c39-9a51-0f1e2d3c4b5a"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_SERVER, ExitCodes.HELP_USAGE, ExitCodes.HELP_UNREACHABLE})
public final class GetCommand implements Callable<Integer> {

  static final int MAX_LIMIT = 500;

  /** The statuses of docs/design.md#interfaces, checked here so that a typo is a usage error. */
  enum Status { RUNNING, SUCCEEDED, FAILED, COMPENSATING, COMPENSATED, CANCELLED }

  @Parameters(arity = "0..2", paramLabel = "<workflow> | instance <id>",
      description = "A Workflow name (none: every workflow), or `instance` and an instance id.")
  List<String> args = new ArrayList<>();

  @Option(names = "--status", paramLabel = "STATUS", description = "Only instances in this status: ${COMPLETION-CANDIDATES}.")
  Status status;

  @Option(names = {"-k", "--business-key"}, paramLabel = "KEY", description = "Only the instance of this business key.")
  String businessKey;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "50",
      description = "At most N instances (1 to " + MAX_LIMIT + ").")
  int limit;

  @Mixin NamespaceOption namespace;
  @Mixin RuntimeOptions runtime;
  @Mixin OutputOptions output;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
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
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new ParameterException(spec.commandLine(), "--limit must be from 1 to " + MAX_LIMIT + ", got " + limit);
    }
    RuntimeClient client = runtime.client();
    List<JsonNode> items = args.isEmpty() ? everyWorkflow(client) : list(client, args.get(0), false);
    items.sort(Comparator.comparing((JsonNode i) -> Json.text(i, "createdAt")).reversed());
    if (items.size() > limit) {
      items = items.subList(0, limit);
    }
    var out = spec.commandLine().getOut();
    if (!output.isTable()) {
      ObjectNode doc = Json.object();
      ArrayNode array = doc.putArray("items");
      items.forEach(array::add);
      doc.put("count", items.size());
      Json.print(out, output.format(), doc);
    } else if (items.isEmpty()) {
      out.println("No instances" + (args.isEmpty() ? "" : " of " + namespace.namespace() + "/" + args.get(0))
          + (status == null && businessKey == null ? "" : " match") + ".");
    } else {
      Instances.table(items, Instant.now()).print(out);
    }
    out.flush();
    return ExitCodes.OK;
  }

  private int one(String id) {
    JsonNode i = runtime.client().get(Instances.path(id)).body();
    var out = spec.commandLine().getOut();
    if (output.isTable()) {
      Instances.table(List.of(i), Instant.now()).print(out);
    } else {
      Json.print(out, output.format(), i);
    }
    return ExitCodes.OK;
  }

  /** One workflow's instances; {@code quiet}: a workflow unknown in this namespace has none. */
  private List<JsonNode> list(RuntimeClient client, String workflow, boolean quiet) {
    StringBuilder path = new StringBuilder(Instances.listPath(namespace.namespace(), workflow))
        .append("?limit=").append(limit);
    if (status != null) {
      path.append("&status=").append(status.name());
    }
    if (businessKey != null) {
      path.append("&businessKey=").append(RuntimeClient.encode(businessKey));
    }
    RuntimeClient.Response r = quiet ? client.getAccepting(path.toString(), Set.of(404)) : client.get(path.toString());
    List<JsonNode> items = new ArrayList<>();
    if (r.status() == 200) {
      r.body().path("items").forEach(items::add);
    }
    return items;
  }

  /** The runtime says which workflows it consumes on {@code /healthz}; their instances, merged. */
  private List<JsonNode> everyWorkflow(RuntimeClient client) {
    JsonNode health = client.getAccepting("/healthz", Set.of(503)).body();
    Set<String> workflows = new TreeSet<>();
    health.path("consuming").forEach(w -> workflows.add(w.asText()));
    if (workflows.isEmpty()) {
      throw CliException.server("the runtime at " + client.url() + " runs no workflow yet: apply one"
          + " (kubectl apply -f examples/order-saga/) or name it: baton get <workflow>");
    }
    List<JsonNode> items = new ArrayList<>();
    for (String workflow : workflows) {
      items.addAll(list(client, workflow, true));
    }
    return items;
  }
}
