package dev.baton.cli.support;

import dev.baton.contract.settings.InvalidSettingsException;
import dev.baton.contract.settings.SettingsReader;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Options' defaults from their {@link EnvVariable}, read with the {@link SettingsReader} every Baton process uses:
 * {@code BATON_HTTP_PORT=eighty} fails {@code baton dev} with the same
 * {@code BATON_HTTP_PORT: expected a whole number from 0 to 65535, got 'eighty'} as the runtime, and every bad
 * variable of the command is named at once. An unset variable leaves the option's own default.
 */
public final class EnvironmentDefaults implements IDefaultValueProvider {

  private final Map<String, String> env;
  private final Map<CommandSpec, Map<ArgSpec, String>> read = new IdentityHashMap<>();

  public EnvironmentDefaults(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  /** The {@link EnvVariable} of an option declared on a field, or null. */
  public static EnvVariable variable(ArgSpec arg) {
    return arg.userObject() instanceof Field f ? f.getAnnotation(EnvVariable.class) : null;
  }

  /** @throws CommandLine.ParameterException caused by the {@link InvalidSettingsException} of the command's options */
  @Override
  public String defaultValue(ArgSpec arg) {
    if (variable(arg) == null) {
      return null;
    }
    Map<ArgSpec, String> values = read.get(arg.command());
    if (values == null) {
      values = readAll(arg.command());
      read.put(arg.command(), values);
    }
    return values.get(arg);
  }

  /** Every option of the command at once, so that one error names every bad variable. */
  private Map<ArgSpec, String> readAll(CommandSpec command) {
    SettingsReader r = SettingsReader.of(env);
    Map<ArgSpec, String> values = new IdentityHashMap<>();
    for (OptionSpec option : command.options()) {
      EnvVariable v = variable(option);
      String value = v == null ? null : read(r, v, option.type());
      if (value != null) {
        values.put(option, value);
      }
    }
    try {
      r.requireValid();
    } catch (InvalidSettingsException e) {
      throw new CommandLine.ParameterException(command.commandLine(), e.getMessage(), e);
    }
    return values;
  }

  /** The value as text the option's converter reads back, or null when unset or bad. */
  private static String read(SettingsReader r, EnvVariable v, Class<?> type) {
    String name = v.value();
    if (type == int.class || type == Integer.class) {
      return text(r.integer(name, null, v.min(), v.max()));
    }
    if (type == boolean.class || type == Boolean.class) {
      return text(r.bool(name, null));
    }
    if (type == Duration.class) {
      Duration d = r.duration(name, null);
      return d == null ? null : BatonDurationConverter.format(d);
    }
    if (type.isEnum()) {
      return enumName(r, name, type.asSubclass(Enum.class));
    }
    if (v.secret()) {
      return r.secret(name);
    }
    if (v.schemes().length > 0) {
      return r.uri(name, null, v.schemes());
    }
    return r.string(name, null);
  }

  private static <E extends Enum<E>> String enumName(SettingsReader r, String name, Class<E> type) {
    E value = r.enumeration(name, type, null);
    return value == null ? null : value.name();
  }

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }
}
