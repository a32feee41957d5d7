package dev.baton.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a free local port that a test can cut and restore, to make a shared service (the broker, the
 * database) unreachable for one component without stopping it for everyone else. While cut, new connections are
 * accepted and closed at once and open ones are closed. It can also hold back what the service sends (its replies,
 * its confirms) while the client's bytes still go through.
 */
public final class TcpProxy implements AutoCloseable {

  private final ServerSocket server;
  private final String targetHost;
  private final int targetPort;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;
  private final Object replies = new Object();
  private boolean holdingReplies;
  private volatile boolean closed;

  private TcpProxy(ServerSocket server, String targetHost, int targetPort) {
    this.server = server;
    this.targetHost = targetHost;
    this.targetPort = targetPort;
  }

  public static TcpProxy start(String targetHost, int targetPort) {
    try {
      ServerSocket server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      TcpProxy proxy = new TcpProxy(server, targetHost, targetPort);
      Thread acceptor = new Thread(proxy::acceptLoop, "tcp-proxy-" + server.getLocalPort());
      acceptor.setDaemon(true);
      acceptor.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Drops every connection and refuses new ones until {@link #restore()}. */
  public void cut() {
    cut = true;
    open.forEach(TcpProxy::closeQuietly);
    open.clear();
  }

  public void restore() {
    cut = false;
  }

  /** Holds back every byte the service sends until {@link #releaseReplies()}; the client's still reach it. */
  public void holdReplies() {
    synchronized (replies) {
      holdingReplies = true;
    }
  }

  public void releaseReplies() {
    synchronized (replies) {
      holdingReplies = false;
      replies.notifyAll();
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    open.forEach(TcpProxy::closeQuietly);
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        if (cut) {
          closeQuietly(client);
          continue;
        }
        Socket target = new Socket(targetHost, targetPort);
        open.add(client);
        open.add(target);
        pump(client, target, false);
        pump(target, client, true);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to, boolean reply) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (reply) {
            awaitRepliesReleased();
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // one side closed: close both
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        open.remove(from);
        open.remove(to);
      }
    }, "tcp-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private void awaitRepliesReleased() throws IOException {
    synchronized (replies) {
      while (holdingReplies && !closed) {
        try {
          replies.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
      }
    }
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // nothing to do
    }
  }
}
