package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.cli.support.Documents;
import dev.baton.cli.support.ExitCodes;
import dev.baton.cli.support.OutputOptions;
import dev.baton.httpapi.BatchStartRequest;
import dev.baton.httpapi.BatchStartResponse;
import dev.baton.httpapi.InvalidRequest;
import dev.baton.httpapi.StartRequest;
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
 * {@code baton start --from-file}: JSON lines, each checked as the runtime checks a start ({@link StartRequest}) before
 * anything is sent, then sent to the runtime's batch start in batches of up to {@value #BATCH} starts and about half a
 * MiB (each one transaction, idempotent per business key), with progress per batch. A run stopped half-way is simply
 * run again: the keys already started come back as existing instances.
 */
final class StartBatches {

  static final int BATCH = BatchStartRequest.MAX_INSTANCES;
  /** Half the runtime's default request limit (BATON_HTTP_MAX_REQUEST_BYTES, 1 MiB): large inputs make batches smaller. */
  static final int BATCH_BYTES = 512 * 1024;

  private final CommandSpec spec;
  private final RuntimeClient client;
  private final OutputOptions output;
  private final String path;

  /** @param path where to send the batches ({@link dev.baton.httpapi.ApiPaths#batch}) */
  StartBatches(CommandSpec spec, RuntimeClient client, OutputOptions output, String path) {
    this.spec = spec;
    this.client = client;
    this.output = output;
    this.path = path;
  }

  /** The starts of the file, each line a JSON object with a businessKey; blank lines are skipped. */
  static List<StartRequest> read(CommandSpec spec, String file) {
    List<StartRequest> starts = new ArrayList<>();
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
        try {
          starts.add(StartRequest.parse(o, ""));
        } catch (InvalidRequest e) {
          throw new ParameterException(spec.commandLine(), file + " line " + number + ": " + e.getMessage());
        }
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

  int run(List<StartRequest> starts) {
    PrintWriter out = spec.commandLine().getOut();
    List<BatchStartResponse.Result> all = new ArrayList<>();
    int created = 0;
    for (int from = 0; from < starts.size(); ) {
      int to = from;
      long bytes = 0;
      while (to < starts.size() && to - from < BATCH && (to == from || bytes < BATCH_BYTES)) {
        bytes += Json.write(starts.get(to)).length();
        to++;
      }
      BatchStartRequest batch = new BatchStartRequest(starts.subList(from, to));
      from = to;
      for (BatchStartResponse.Result result : client.post(path, batch, BatchStartResponse.class).results()) {
        all.add(result);
        created += result.created() ? 1 : 0;
      }
      if (!output.isDocument() && !output.isName()) {
        out.println("sent " + all.size() + " of " + starts.size() + " (" + created + " started, "
            + (all.size() - created) + " already existed)");
        out.flush();
      }
    }
    if (output.isDocument()) {
      Documents.print(out, output.format(), new BatchStartResponse(all));
    } else if (output.isName()) {
      all.forEach(result -> out.println(InstanceRows.name(result.id())));
    }
    out.flush();
    return ExitCodes.OK;
  }
}
