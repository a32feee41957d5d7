package dev.baton.cli.support;

import dev.baton.contract.BatonDuration;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;

/** A duration option written as in resources ({@code 500ms}, {@code 30s}, {@code 2m}, {@code 168h}). */
public final class BatonDurationConverter implements ITypeConverter<Duration> {

  @Override
  public Duration convert(String value) {
    return BatonDuration.parse(value.trim()).toDuration();
  }

  /** The text this converter reads back into {@code d}. */
  public static String format(Duration d) {
    return BatonDuration.ofMillis(d.toMillis()).toString();
  }
}
