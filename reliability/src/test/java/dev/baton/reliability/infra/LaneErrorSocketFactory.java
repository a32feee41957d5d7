package dev.baton.reliability.infra;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.SocketFactory;

/**
 * The runtime's database sockets, for the "lane Error" scenario: given to pgjdbc with {@code socketFactory=} in the
 * runtime's JDBC URL, in the runtime's own JVM. While the file named by the system property {@value #ARM} exists, the
 * next read of a consumer lane's thread ({@code baton-step-loop-*}) takes the file, closes its socket and throws an
 * {@link Error} — what an {@code OutOfMemoryError} or a driver bug inside a lane's transaction looks like to the
 * lane. The socket being closed, the pool discards the connection; nothing else is affected.
 */
public final class LaneErrorSocketFactory extends SocketFactory {

  public static final String ARM = "baton.reliability.laneErrorFile";
  private static final String LANE_THREADS = "baton-step-loop-";

  private final Path armed = System.getProperty(ARM) == null ? null : Path.of(System.getProperty(ARM));

  @Override
  public Socket createSocket() {
    return new ErrorSocket();
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    Socket s = createSocket();
    s.connect(new java.net.InetSocketAddress(host, port));
    return s;
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
    return createSocket(host, port);
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return createSocket(host.getHostAddress(), port);
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    return createSocket(address.getHostAddress(), port);
  }

  /** Whether this read is the one to fail: a lane's, while armed; the file is taken by exactly one thread. */
  private boolean strike() {
    if (armed == null || !Thread.currentThread().getName().startsWith(LANE_THREADS) || !Files.exists(armed)
        || insidePool()) {
      return false;
    }
    try {
      return Files.deleteIfExists(armed);
    } catch (IOException e) {
      return false;
    }
  }

  /** The pool checking a connection it lends (it swallows what that throws): not the lane's own statement. */
  private static boolean insidePool() {
    return StackWalker.getInstance().walk(frames -> frames.anyMatch(
        f -> f.getClassName().equals("com.zaxxer.hikari.pool.PoolBase")
            || f.getClassName().equals("com.zaxxer.hikari.pool.HikariPool")));
  }

  private final class ErrorSocket extends Socket {
    @Override
    public InputStream getInputStream() throws IOException {
      Socket socket = this;
      return new FilterInputStream(super.getInputStream()) {
        @Override
        public int read() throws IOException {
          check();
          return super.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          check();
          return super.read(b, off, len);
        }

        private void check() throws IOException {
          if (strike()) {
            socket.close();
            throw new InjectedLaneError();
          }
        }
      };
    }
  }

  /** The injected failure: an {@link Error}, not an exception. */
  public static final class InjectedLaneError extends Error {
    InjectedLaneError() {
      super("injected by the reliability suite: an Error inside a consumer lane's database call");
    }
  }
}
