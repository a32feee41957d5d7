package dev.baton.cli.support;

/**
 * A command cannot do what was asked: its message is printed as one line on stderr and {@link #exitCode()} ends the
 * process (see {@link ExitCodes}).
 */
public final class CliException extends RuntimeException {

  private final int exitCode;

  public CliException(int exitCode, String message) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  public CliException(int exitCode, String message, Throwable cause) {
    super(message, cause, false, false);
    this.exitCode = exitCode;
  }

  public static CliException server(String message) {
    return new CliException(ExitCodes.SERVER_ERROR, message);
  }

  public static CliException unreachable(String message, Throwable cause) {
    return new CliException(ExitCodes.UNREACHABLE, message, cause);
  }

  public int exitCode() {
    return exitCode;
  }
}
