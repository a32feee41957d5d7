package dev.baton.conformance;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The file {@code BATON_CONFORMANCE_LOG}: one JSON line per handler start, written and flushed before the handler does
 * anything, so the suite counts runs even of a handler that never returns (conformance/README.md).
 */
public final class HandlerLog {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;

  public HandlerLog(Path file) {
    this.file = file;
  }

  /** {@code kind} is {@code command} or {@code event}; {@code retries} the delivery's {@code baton-retries}. */
  public synchronized void started(String kind, String messageId, String conformanceCase, int retries) {
    ObjectNode line = JSON.createObjectNode()
        .put("kind", kind)
        .put("messageId", messageId)
        .put("case", conformanceCase)
        .put("retries", retries);
    try {
      // one write per line, opened in append mode: a line is never interleaved with another process's
      Files.write(file, (JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8),
          StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE, StandardOpenOption.SYNC);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the conformance log " + file, e);
    }
  }
}
