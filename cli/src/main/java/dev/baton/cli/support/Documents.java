package dev.baton.cli.support;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.baton.api.json.Json;
import java.io.PrintWriter;

/**
 * {@code -o json} and {@code -o yaml}: a document (a JSON tree or a typed one such as the runtime's instance) printed
 * whole for scripts, indented JSON or YAML, instants as ISO-8601 text in both.
 */
public final class Documents {

  private static final ObjectMapper YAML = YAMLMapper.builder()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .build();

  private Documents() {}

  /** Prints a document as {@code -o json} or {@code -o yaml} asks. */
  public static void print(PrintWriter out, Format format, Object document) {
    try {
      out.print(format == Format.yaml ? YAML.writeValueAsString(document)
          : Json.PRETTY.writeValueAsString(document) + System.lineSeparator());
      out.flush();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot print the document: " + e.getOriginalMessage(), e);
    }
  }
}
