package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.support.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** A JSON option value: the JSON itself, {@code @file} to read it from a file, {@code @-} from stdin. */
final class JsonArgument {

  private JsonArgument() {}

  /**
   * @param option the option's name, for the message of a bad value
   * @param objectOnly the value must be a JSON object (else any JSON value)
   */
  static JsonNode parse(CommandSpec spec, String option, String value, boolean objectOnly) {
    String text = value.startsWith("@") ? read(spec, option, value.substring(1)) : value;
    JsonNode json = Json.parseOrNull(text);
    if (json == null || (objectOnly && !json.isObject())) {
      throw new ParameterException(spec.commandLine(), option + " must be " + (objectOnly ? "a JSON object" : "JSON")
          + " such as '{\"amount\": 42}'" + (value.startsWith("@") ? " (read from " + value + ")" : "") + ", got: "
          + abbreviate(text));
    }
    return json;
  }

  private static String read(CommandSpec spec, String option, String file) {
    try {
      if (file.equals("-")) {
        return new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
      }
      return Files.readString(Path.of(file), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ParameterException(spec.commandLine(), option + " @" + file + ": cannot read " + file + " ("
          + e.getClass().getSimpleName() + ")");
    }
  }

  private static String abbreviate(String s) {
    String one = s.strip().replaceAll("\\s+", " ");
    return one.length() > 60 ? one.substring(0, 57) + "..." : one;
  }
}
