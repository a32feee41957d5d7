package dev.baton.contract.settings;

/** {@code BATON_LOG_FORMAT} of the operator and runtime processes: text lines, or one JSON object per line. */
public enum LogFormat {
  TEXT,
  JSON;

  public static final String VARIABLE = "BATON_LOG_FORMAT";

  /** The format the environment asks for; {@link #TEXT} when unset. */
  public static LogFormat read(SettingsReader reader) {
    return reader.enumeration(VARIABLE, LogFormat.class, TEXT);
  }
}
