package dev.baton.devapi;

/** The dev API could not listen because something else already does on its port. */
public final class PortInUseException extends RuntimeException {

  private final int port;

  PortInUseException(String host, int port, Throwable cause) {
    super("port " + port + " on " + host + " is already in use", cause);
    this.port = port;
  }

  public int port() {
    return port;
  }
}
