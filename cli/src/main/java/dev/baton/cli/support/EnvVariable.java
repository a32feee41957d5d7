package dev.baton.cli.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The {@code BATON_*} variable that gives an option its default, read by {@link EnvironmentDefaults} as every Baton
 * process reads its settings (contract/README.md, "Settings") and listed by {@link EnvironmentHelp} under
 * "Environment" in {@code --help}. How the value is read follows the option's type: whole numbers (within
 * {@link #min()}..{@link #max()}), booleans, enums, Baton durations (a {@code java.time.Duration} option), URIs (a
 * text option with {@link #schemes()}), secrets ({@link #secret()}), plain text otherwise.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface EnvVariable {

  /** The variable, e.g. {@code BATON_RUNTIME_URL}. */
  String value();

  int min() default Integer.MIN_VALUE;

  int max() default Integer.MAX_VALUE;

  /** For a URI: the schemes allowed, e.g. {@code http, https}. */
  String[] schemes() default {};

  /** A secret: also read from the file named by {@code <variable>_FILE}, never shown. */
  boolean secret() default false;
}
