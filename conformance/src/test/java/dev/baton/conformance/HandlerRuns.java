package dev.baton.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The worker's handler starts, as it logs them to {@code BATON_CONFORMANCE_LOG} (conformance/README.md). */
final class HandlerRuns {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One line of the log. */
  record Run(String kind, String messageId, String conformanceCase, int retries) {}

  private final Path file;

  HandlerRuns(Path file) {
    this.file = file;
  }

  Path file() {
    return file;
  }

  /** Every run so far of the message {@code messageId}, in the order they started. */
  List<Run> of(String messageId) {
    return all().stream().filter(r -> messageId.equals(r.messageId())).toList();
  }

  /** The retries header of each run of {@code messageId}. */
  List<Integer> retries(String messageId) {
    return of(messageId).stream().map(Run::retries).toList();
  }

  List<Run> all() {
    if (!Files.exists(file)) {
      return List.of();
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Run> runs = new ArrayList<>();
    // only whole lines: the worker may be writing the last one
    String[] lines = text.substring(0, text.lastIndexOf('\n') + 1).split("\n");
    for (String line : lines) {
      if (line.isBlank()) {
        continue;
      }
      try {
        JsonNode n = JSON.readTree(line);
        runs.add(new Run(n.path("kind").asText(), n.path("messageId").asText(), n.path("case").asText(),
            n.path("retries").asInt()));
      } catch (IOException e) {
        throw new IllegalStateException("the conformance log " + file + " has a line that is not JSON: " + line, e);
      }
    }
    return runs;
  }
}
