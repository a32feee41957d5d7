package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.Json;
import dev.baton.cli.support.OutputOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code baton start --from-file}: JSON lines, checked whole before anything is sent, then sent to the runtime's batch
 * start in batches of up to {@value #BATCH} starts and about half a MiB (each one transaction, idempotent per business key), with progress per batch.
 * A run stopped half-way is simply run again: the keys already started come back as existing instances.
 */
final class StartBatches {

  static final int BATCH = 1000;
  /** Half the runtime's default request limit (BATON_HTTP_MAX_REQUEST_BYTES, 1 MiB): large inputs make batches smaller. */
  static final int BATCH_BYTES = 512 * 1024;

  private final CommandSpec spec;
  private final RuntimeClient client;
  private final OutputOptions output;
  private final String path;

  StartBatches(CommandSpec spec, RuntimeClient client, OutputOptions output, String instancesPath) {
    this.spec = spec;
    this.client = client;
    this.output = output;
    this.path = instancesPath + "/batch";
  }

  /** The starts of the file, each line a JSON object with a businessKey; blank lines are skipped. */
  static List<ObjectNode> read(CommandSpec spec, String file) {
    List<ObjectNode> starts = new ArrayList<>();
    try (BufferedReader in = file.equals("-")
        ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
        : Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
      String line;
      int number = 0;
      while ((line = in.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        JsonNode json;
        try {
          json = Json.MAPPER.readTree(line);
        } catch (IOException e) {
          throw new ParameterException(spec.commandLine(), file + " line " + number + ": not JSON ("
              + e.getMessage().lines().findFirst().orElse("") + ")");
        }
        if (!(json instanceof ObjectNode o) || !o.path("businessKey").isTextual()
            || o.path("businessKey").asText().isBlank()) {
          throw new ParameterException(spec.commandLine(), file + " line " + number
              + ": expected {\"businessKey\": \"...\", \"input\": {...}}");
        }
        starts.add(o);
      }
    } catch (IOException e) {
      throw new ParameterException(spec.commandLine(), "--from-file " + file + ": cannot read it (" + e.getMessage()
          + ")");
    }
    if (starts.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--from-file " + file + ": no starts in it");
    }
    return starts;
  }

  int run(List<ObjectNode> starts) {
    PrintWriter out = spec.commandLine().getOut();
    ArrayNode all = Json.MAPPER.createArrayNode();
    int created = 0;
    for (int from = 0; from < starts.size(); ) {
      int to = from;
      long bytes = 0;
      while (to < starts.size() && to - from < BATCH && (to == from || bytes < BATCH_BYTES)) {
        bytes += starts.get(to).toString().length();
        to++;
      }
      List<ObjectNode> batch = starts.subList(from, to);
      from = to;
      ObjectNode body = Json.object();
      body.putArray("instances").addAll(batch);
      RuntimeClient.Response r = client.post(path, body);
      for (JsonNode result : r.body().path("results")) {
        all.add(result);
        created += result.path("created").asBoolean() ? 1 : 0;
      }
      if (output.isTable()) {
        out.println("sent " + all.size() + " of " + starts.size() + " (" + created + " started, "
            + (all.size() - created) + " already existed)");
        out.flush();
      }
    }
    if (!output.isTable()) {
      ObjectNode results = Json.object();
      results.set("results", all);
      Json.print(out, output.format(), results);
    }
    out.flush();
    return ExitCodes.OK;
  }
}
