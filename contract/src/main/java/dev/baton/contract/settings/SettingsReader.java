package dev.baton.contract.settings;

import dev.baton.contract.BatonDuration;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The one reader of Baton's settings from an environment ({@link System#getenv()} in a process, a map in tests):
 * the runtime, the operator, workers and the CLI all parse their {@code BATON_*} variables here, so a value means
 * the same everywhere and a bad one is reported the same way (contract/README.md, "Settings").
 *
 * <p>A blank variable is unset. A value that cannot be read is recorded as a problem, named after its variable
 * ({@code BATON_OUTBOX_POLL_INTERVAL: expected a duration such as 30s, got 'abc'}), and the fallback is returned so
 * that reading goes on: {@link #read(Map, Function)} then reports every problem in one
 * {@link InvalidSettingsException}. Values of secrets are never part of a problem.
 */
public final class SettingsReader {

  /** The suffix of the variable naming a file that holds a secret, e.g. {@code BATON_API_TOKEN_FILE}. */
  public static final String FILE_SUFFIX = "_FILE";

  // The credentials of a URI (//user:password@) are masked wherever a value is quoted back.
  private static final Pattern USER_INFO = Pattern.compile("//([^/@:]*):[^/@]*@");

  private final Map<String, String> env;
  private final List<String> problems = new ArrayList<>();

  private SettingsReader(Map<String, String> env) {
    this.env = Objects.requireNonNull(env, "env");
  }

  /** A reader collecting problems; call {@link #requireValid()} when done, or use {@link #read(Map, Function)}. */
  public static SettingsReader of(Map<String, String> env) {
    return new SettingsReader(env);
  }

  /**
   * Reads settings with {@code reading} and fails with every problem at once. When some variable was bad,
   * {@code reading} may also have failed on a fallback it was given; that failure is a consequence and is attached to
   * the exception as suppressed rather than reported.
   *
   * @throws InvalidSettingsException listing every variable that could not be read
   */
  public static <T> T read(Map<String, String> env, Function<SettingsReader, T> reading) {
    SettingsReader reader = of(env);
    T value;
    try {
      value = reading.apply(reader);
    } catch (RuntimeException e) {
      if (reader.problems.isEmpty()) {
        throw e;
      }
      InvalidSettingsException invalid = new InvalidSettingsException(reader.problems);
      invalid.addSuppressed(e);
      throw invalid;
    }
    reader.requireValid();
    return value;
  }

  /** The problems found so far, one line each. */
  public List<String> problems() {
    return List.copyOf(problems);
  }

  /** @throws InvalidSettingsException when any variable read so far was bad */
  public void requireValid() {
    if (!problems.isEmpty()) {
      throw new InvalidSettingsException(problems);
    }
  }

  /** Records a problem no single value shows, e.g. two variables that contradict each other. */
  public void problem(String name, String message) {
    problems.add(name + ": " + message);
  }

  /** Whether the variable has a non-blank value. */
  public boolean isSet(String name) {
    return raw(name) != null;
  }

  /** The trimmed value, or {@code fallback} when unset. */
  public String string(String name, String fallback) {
    String v = raw(name);
    return v == null ? fallback : v;
  }

  /** The trimmed value; a problem when unset. */
  public String requiredString(String name) {
    return required(name, "a value", Function.identity());
  }

  /** A whole number, or {@code fallback} when unset. */
  public Integer integer(String name, Integer fallback) {
    return integer(name, fallback, Integer.MIN_VALUE, Integer.MAX_VALUE);
  }

  /** A whole number from {@code min} to {@code max}, or {@code fallback} when unset. */
  public Integer integer(String name, Integer fallback, int min, int max) {
    return value(name, fallback, wholeNumber(min, max), v -> {
      int n = Integer.parseInt(v);
      if (n < min || n > max) {
        throw new IllegalArgumentException("out of bounds");
      }
      return n;
    });
  }

  /** {@code true/false}, {@code yes/no} or {@code 1/0}, in any case; {@code fallback} when unset. */
  public Boolean bool(String name, Boolean fallback) {
    return value(name, fallback, "true or false (or yes/no, 1/0)", v -> switch (v.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default -> throw new IllegalArgumentException(v);
    });
  }

  /** A duration as in resources ({@link BatonDuration}): {@code 500ms}, {@code 30s}, {@code 2m}, {@code 168h}. */
  public Duration duration(String name, Duration fallback) {
    return value(name, fallback, "a duration such as 30s", v -> BatonDuration.parse(v).toDuration());
  }

  /** A comma list of at least one duration, e.g. {@code 30s,2m,10m}; {@code fallback} when unset. */
  public List<BatonDuration> durations(String name, List<BatonDuration> fallback) {
    return value(name, fallback, "a comma list of durations such as 30s,2m", v -> {
      List<BatonDuration> parsed = split(v).stream().map(BatonDuration::parse).toList();
      if (parsed.isEmpty()) {
        throw new IllegalArgumentException("no duration");
      }
      return parsed;
    });
  }

  /** One of the constants of {@code type}, in any case; {@code fallback} when unset. */
  public <E extends Enum<E>> E enumeration(String name, Class<E> type, E fallback) {
    E[] constants = type.getEnumConstants();
    String allowed = Arrays.stream(constants).map(c -> c.name().toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(", "));
    return value(name, fallback, "one of " + allowed, v -> Arrays.stream(constants)
        .filter(c -> c.name().equalsIgnoreCase(v)).findFirst().orElseThrow(IllegalArgumentException::new));
  }

  /**
   * A URI with a host and one of {@code schemes}, as given (trimmed); {@code fallback} when unset. Its credentials,
   * if any, are masked in a problem.
   */
  public String uri(String name, String fallback, String... schemes) {
    return value(name, fallback, uriExpected(schemes), v -> checkedUri(v, schemes));
  }

  /** {@link #uri(String, String, String...)} that must be set. */
  public String requiredUri(String name, String... schemes) {
    return required(name, uriExpected(schemes), v -> checkedUri(v, schemes));
  }

  /** A comma list, each item trimmed, empty items dropped; {@code fallback} when unset. */
  public List<String> list(String name, List<String> fallback) {
    return value(name, fallback, "a comma list", SettingsReader::split);
  }

  /** {@link #secret(String, String)} without a fallback: null when neither variable is set. */
  public String secret(String name) {
    return secret(name, null);
  }

  /**
   * A secret from {@code NAME}, or from the file named by {@code NAME_FILE} (a mounted Secret: surrounding white
   * space and the final newline are dropped); {@code fallback} when neither is set. Setting both is a problem, and so
   * is a file that cannot be read or is empty; the value itself never appears in a problem.
   */
  public String secret(String name, String fallback) {
    String direct = raw(name);
    String file = raw(name + FILE_SUFFIX);
    if (direct != null && file != null) {
      problem(name, "set " + name + " or " + name + FILE_SUFFIX + ", not both");
      return fallback;
    }
    if (file == null) {
      return direct == null ? fallback : direct;
    }
    try {
      String v = Files.readString(Path.of(file)).strip();
      if (v.isEmpty()) {
        problem(name + FILE_SUFFIX, "expected a file holding the secret, got the empty file '" + file + "'");
        return fallback;
      }
      return v;
    } catch (IOException | InvalidPathException e) {
      problem(name + FILE_SUFFIX,
          "expected a readable file, got '" + file + "' (" + e.getClass().getSimpleName() + ")");
      return fallback;
    }
  }

  /**
   * A value of any other type: {@code parse} turns the trimmed text into it or throws; the problem then says
   * {@code NAME: expected <expected>, got '<value>'}. {@code fallback} when unset.
   */
  public <T> T value(String name, T fallback, String expected, Function<String, ? extends T> parse) {
    String v = raw(name);
    if (v == null) {
      return fallback;
    }
    try {
      return parse.apply(v);
    } catch (RuntimeException e) {
      problems.add(name + ": expected " + expected + ", got '" + USER_INFO.matcher(v).replaceAll("//$1:***@") + "'");
      return fallback;
    }
  }

  /** {@link #value} that must be set: a problem, and null, when it is not. */
  public <T> T required(String name, String expected, Function<String, ? extends T> parse) {
    if (raw(name) == null) {
      problem(name, "required but not set");
      return null;
    }
    return value(name, null, expected, parse);
  }

  private String raw(String name) {
    String v = env.get(name);
    return v == null || v.isBlank() ? null : v.trim();
  }

  private static List<String> split(String v) {
    return Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  private static String wholeNumber(int min, int max) {
    if (min == Integer.MIN_VALUE && max == Integer.MAX_VALUE) {
      return "a whole number";
    }
    if (max == Integer.MAX_VALUE) {
      return "a whole number of at least " + min;
    }
    if (min == Integer.MIN_VALUE) {
      return "a whole number of at most " + max;
    }
    return "a whole number from " + min + " to " + max;
  }

  private static String uriExpected(String... schemes) {
    return "a URI with scheme " + String.join(" or ", schemes) + " and a host";
  }

  private static String checkedUri(String v, String... schemes) {
    URI uri;
    try {
      uri = new URI(v);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a URI", e);
    }
    if (uri.getScheme() == null || !Set.of(schemes).contains(uri.getScheme().toLowerCase(Locale.ROOT))
        || uri.getHost() == null) {
      throw new IllegalArgumentException("wrong scheme or no host");
    }
    return v;
  }
}
