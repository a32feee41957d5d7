package dev.baton.cli.instances;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
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
   * Any JSON value.
   *
   * @param option the option's name, for the message of a bad value
   */
  static JsonNode parse(CommandSpec spec, String option, String value) {
    return parse(spec, option, value, false);
  }

  /** A JSON object. */
  static ObjectNode object(CommandSpec spec, String option, String value) {
    return (ObjectNode) parse(spec, option, value, true);
  }

  private static JsonNode parse(CommandSpec spec, String option, String value, boolean objectOnly) {
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
