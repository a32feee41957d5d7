package dev.baton.contract.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.baton.contract.BatonDuration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SettingsReaderTest {

  enum Colour { RED, DARK_BLUE }

  /** How one type is read from the variable {@code X}. */
  private static Function<SettingsReader, Object> as(String type) {
    return switch (type) {
      case "string" -> r -> r.string("X", "fallback");
      case "required" -> r -> r.requiredString("X");
      case "integer" -> r -> r.integer("X", 7);
      case "port" -> r -> r.integer("X", 7, 0, 65_535);
      case "positive" -> r -> r.integer("X", 7, 1, Integer.MAX_VALUE);
      case "at most 9" -> r -> r.integer("X", 7, Integer.MIN_VALUE, 9);
      case "boolean" -> r -> r.bool("X", false);
      case "duration" -> r -> r.duration("X", Duration.ofSeconds(1));
      case "durations" -> r -> r.durations("X", List.of());
      case "enum" -> r -> r.enumeration("X", Colour.class, Colour.RED);
      case "http uri" -> r -> r.uri("X", "http://fallback", "http", "https");
      case "amqp uri" -> r -> r.requiredUri("X", "amqp", "amqps");
      case "list" -> r -> r.list("X", List.of("fallback"));
      case "secret" -> r -> r.secret("X", "fallback");
      default -> throw new IllegalArgumentException(type);
    };
  }

  static Stream<Arguments> goodValues() {
    return Stream.of(
        Arguments.of("string", "  shop ", "shop"),
        Arguments.of("string", null, "fallback"),
        Arguments.of("string", "   ", "fallback"),
        Arguments.of("required", "x", "x"),
        Arguments.of("integer", "-3", -3),
        Arguments.of("integer", null, 7),
        Arguments.of("port", "0", 0),
        Arguments.of("port", " 65535 ", 65_535),
        Arguments.of("positive", "1", 1),
        Arguments.of("at most 9", "9", 9),
        Arguments.of("boolean", "true", true),
        Arguments.of("boolean", "YES", true),
        Arguments.of("boolean", "1", true),
        Arguments.of("boolean", "False", false),
        Arguments.of("boolean", "no", false),
        Arguments.of("boolean", "0", false),
        Arguments.of("boolean", "", false),
        Arguments.of("duration", "500ms", Duration.ofMillis(500)),
        Arguments.of("duration", "30s", Duration.ofSeconds(30)),
        Arguments.of("duration", "2m", Duration.ofMinutes(2)),
        Arguments.of("duration", "168h", Duration.ofDays(7)),
        Arguments.of("duration", null, Duration.ofSeconds(1)),
        Arguments.of("durations", "30s, 2m,10m",
            List.of(BatonDuration.parse("30s"), BatonDuration.parse("2m"), BatonDuration.parse("10m"))),
        Arguments.of("durations", "", List.of()),
        Arguments.of("enum", "dark_blue", Colour.DARK_BLUE),
        Arguments.of("enum", "Red", Colour.RED),
        Arguments.of("http uri", "https://baton-runtime:8080", "https://baton-runtime:8080"),
        Arguments.of("http uri", null, "http://fallback"),
        Arguments.of("amqp uri", "amqps://u:p@mq:5671/%2F", "amqps://u:p@mq:5671/%2F"),
        Arguments.of("list", "shop, billing ,,", List.of("shop", "billing")),
        Arguments.of("list", " ", List.of("fallback")),
        Arguments.of("secret", " t0ken ", "t0ken"),
        Arguments.of("secret", null, "fallback"));
  }

  @ParameterizedTest(name = "{0} ''{1}'' -> {2}")
  @MethodSource("goodValues")
  void readsGoodValues(String type, String value, Object expected) {
    Map<String, String> env = new HashMap<>();
    env.put("X", value);
    assertThat(SettingsReader.read(env, as(type))).isEqualTo(expected);
  }

  static Stream<Arguments> badValues() {
    return Stream.of(
        Arguments.of("required", null, "X: required but not set"),
        Arguments.of("required", " ", "X: required but not set"),
        Arguments.of("integer", "eighty", "X: expected a whole number, got 'eighty'"),
        Arguments.of("integer", "1.5", "X: expected a whole number, got '1.5'"),
        Arguments.of("integer", "99999999999", "X: expected a whole number, got '99999999999'"),
        Arguments.of("port", "65536", "X: expected a whole number from 0 to 65535, got '65536'"),
        Arguments.of("port", "-1", "X: expected a whole number from 0 to 65535, got '-1'"),
        Arguments.of("positive", "0", "X: expected a whole number of at least 1, got '0'"),
        Arguments.of("at most 9", "10", "X: expected a whole number of at most 9, got '10'"),
        Arguments.of("boolean", "maybe", "X: expected true or false (or yes/no, 1/0), got 'maybe'"),
        Arguments.of("boolean", "on", "X: expected true or false (or yes/no, 1/0), got 'on'"),
        Arguments.of("duration", "abc", "X: expected a duration such as 30s, got 'abc'"),
        Arguments.of("duration", "7d", "X: expected a duration such as 30s, got '7d'"),
        Arguments.of("duration", "0s", "X: expected a duration such as 30s, got '0s'"),
        Arguments.of("duration", "30", "X: expected a duration such as 30s, got '30'"),
        Arguments.of("durations", "30s,soon", "X: expected a comma list of durations such as 30s,2m, got '30s,soon'"),
        Arguments.of("durations", ", ,", "X: expected a comma list of durations such as 30s,2m, got ', ,'"),
        Arguments.of("enum", "green", "X: expected one of red, dark_blue, got 'green'"),
        Arguments.of("http uri", "ftp://host/",
            "X: expected a URI with scheme http or https and a host, got 'ftp://host/'"),
        Arguments.of("http uri", "baton-runtime:8080",
            "X: expected a URI with scheme http or https and a host, got 'baton-runtime:8080'"),
        Arguments.of("http uri", "http://bad host/",
            "X: expected a URI with scheme http or https and a host, got 'http://bad host/'"),
        Arguments.of("amqp uri", null, "X: required but not set"),
        Arguments.of("amqp uri", "http://rt:hidden@mq:5672/",
            "X: expected a URI with scheme amqp or amqps and a host, got 'http://rt:***@mq:5672/'"));
  }

  @ParameterizedTest(name = "{0} ''{1}''")
  @MethodSource("badValues")
  void namesTheVariableSaysWhatWasExpectedAndWhatItGot(String type, String value, String message) {
    Map<String, String> env = new HashMap<>();
    env.put("X", value);
    assertThatThrownBy(() -> SettingsReader.read(env, as(type)))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessage(message);
  }

  @Test
  void reportsEveryBadVariableAtOnceInTheOrderRead() {
    Map<String, String> env = Map.of(
        "BATON_HTTP_PORT", "eighty",
        "BATON_OUTBOX_POLL_INTERVAL", "abc",
        "BATON_REQUIRE_READY", "maybe",
        "BATON_PREFETCH", "50");
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> SettingsReader.read(env, r -> List.of(
            r.integer("BATON_HTTP_PORT", 8080, 0, 65_535),
            r.duration("BATON_OUTBOX_POLL_INTERVAL", Duration.ofSeconds(1)),
            r.bool("BATON_REQUIRE_READY", false),
            r.integer("BATON_PREFETCH", 1, 1, 100))));
    assertThat(e.problems()).containsExactly(
        "BATON_HTTP_PORT: expected a whole number from 0 to 65535, got 'eighty'",
        "BATON_OUTBOX_POLL_INTERVAL: expected a duration such as 30s, got 'abc'",
        "BATON_REQUIRE_READY: expected true or false (or yes/no, 1/0), got 'maybe'");
    assertThat(e).hasMessage("BATON_HTTP_PORT: expected a whole number from 0 to 65535, got 'eighty'; "
        + "BATON_OUTBOX_POLL_INTERVAL: expected a duration such as 30s, got 'abc'; "
        + "BATON_REQUIRE_READY: expected true or false (or yes/no, 1/0), got 'maybe'");
  }

  @Test
  void aFailureCausedByAFallbackGivesWayToTheProblemsBehindIt() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> SettingsReader.read(Map.of(), r -> r.requiredString("BATON_SERVICE").length()));
    assertThat(e).hasMessage("BATON_SERVICE: required but not set");
    assertThat(e.getSuppressed()).singleElement().isInstanceOf(NullPointerException.class);
  }

  @Test
  void aFailureWithoutProblemsIsNotHidden() {
    assertThatThrownBy(() -> SettingsReader.read(Map.of(), r -> {
      throw new IllegalStateException("a rule of the caller");
    })).isExactlyInstanceOf(IllegalStateException.class).hasMessage("a rule of the caller");
  }

  @Test
  void aProblemAcrossVariablesHasTheSameShape() {
    assertThatThrownBy(() -> SettingsReader.read(Map.of(), r -> {
      r.problem("BATON_RABBITMQ_PASSWORD", "required when BATON_RABBITMQ_USERNAME is set");
      return null;
    })).hasMessage("BATON_RABBITMQ_PASSWORD: required when BATON_RABBITMQ_USERNAME is set");
  }

  @Test
  void aSecretFromAFileLosesItsSurroundingWhiteSpaceAndFinalNewline(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "  s3cret-token\n");
    String fromFile = SettingsReader.read(Map.of("BATON_API_TOKEN_FILE", file.toString()),
        r -> r.secret("BATON_API_TOKEN"));
    assertThat(fromFile).isEqualTo("s3cret-token");
    String unset = SettingsReader.read(Map.of(), r -> r.secret("BATON_API_TOKEN"));
    assertThat(unset).isNull();
  }

  @Test
  void aSecretsProblemsNeverShowItsValue(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "s3cret-in-file\n");
    Path empty = Files.writeString(dir.resolve("empty"), " \n");
    Path missing = dir.resolve("missing");
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> SettingsReader.read(Map.of(
            "BATON_API_TOKEN", "s3cret-direct", "BATON_API_TOKEN_FILE", file.toString(),
            "BATON_API_READ_TOKEN_FILE", empty.toString(),
            "BATON_RUNTIME_TOKEN_FILE", missing.toString()), r -> List.of(
                String.valueOf(r.secret("BATON_API_TOKEN")),
                String.valueOf(r.secret("BATON_API_READ_TOKEN")),
                String.valueOf(r.secret("BATON_RUNTIME_TOKEN")))));
    assertThat(e.problems()).containsExactly(
        "BATON_API_TOKEN: set BATON_API_TOKEN or BATON_API_TOKEN_FILE, not both",
        "BATON_API_READ_TOKEN_FILE: expected a file holding the secret, got the empty file '" + empty + "'",
        "BATON_RUNTIME_TOKEN_FILE: expected a readable file, got '" + missing + "' (NoSuchFileException)");
    assertThat(e.getMessage()).doesNotContain("s3cret");
  }

  @Test
  void problemsCanBeInspectedWithoutThrowing() {
    SettingsReader r = SettingsReader.of(Map.of("X", "x"));
    assertThat(r.integer("X", 3)).isEqualTo(3);
    assertThat(r.problems()).containsExactly("X: expected a whole number, got 'x'");
    assertThatThrownBy(r::requireValid).isInstanceOf(InvalidSettingsException.class);
    assertThat(r.isSet("X")).isTrue();
    assertThat(r.isSet("Y")).isFalse();
  }

  @Test
  void theLogFormatIsTextUnlessJson() {
    assertThat(SettingsReader.read(Map.of(), LogFormat::read)).isEqualTo(LogFormat.TEXT);
    assertThat(SettingsReader.read(Map.of("BATON_LOG_FORMAT", " JSON "), LogFormat::read)).isEqualTo(LogFormat.JSON);
    assertThatThrownBy(() -> SettingsReader.read(Map.of("BATON_LOG_FORMAT", "xml"), LogFormat::read))
        .hasMessage("BATON_LOG_FORMAT: expected one of text, json, got 'xml'");
  }
}
