package dev.baton.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The load generator's HTTP client: one keep-alive HTTP/1.1 connection, used by one thread at a time, that sends a
 * POST with a JSON body and reads the answer on the calling thread (Content-Length or chunked). It exists because the
 * load generator shares the machine with what it measures: the JDK's {@code HttpClient} hands every request to its
 * selector and worker threads and back, and on this 2-core machine took about 330 µs of CPU per request against
 * about 90 µs here (32 clients against the same server), CPU the runtime under test did not get. What it does not do,
 * the benchmark does not need: TLS, redirects, 100-continue, pipelining.
 */
final class KeepAliveClient implements AutoCloseable {

  /** An answer: the status code and the body as text. */
  record Response(int status, String body) {}

  private final InetSocketAddress address;
  private final String hostHeader;
  private final int timeoutMillis;
  private Socket socket;
  private InputStream in;
  private OutputStream out;

  KeepAliveClient(URI server, int timeoutMillis) {
    this.address = new InetSocketAddress(server.getHost(), server.getPort());
    this.hostHeader = server.getHost() + ":" + server.getPort();
    this.timeoutMillis = timeoutMillis;
  }

  /**
   * POSTs {@code json} to {@code path}. A connection the server closed while idle is opened again once; any other
   * failure closes it (the next request opens a new one) and is thrown.
   */
  Response post(String path, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + hostHeader + "\r\nContent-Type: application/json\r\n"
        + "Accept: application/json\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] request = new byte[head.length + body.length];
    System.arraycopy(head, 0, request, 0, head.length);
    System.arraycopy(body, 0, request, head.length, body.length);
    boolean reused = socket != null;
    try {
      return exchange(request);
    } catch (EOFException closedWhileIdle) {
      close();
      if (!reused) {
        throw closedWhileIdle;
      }
      return exchange(request); // the server closed the idle connection: once more on a new one
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private Response exchange(byte[] request) throws IOException {
    if (socket == null) {
      Socket s = new Socket();
      s.setTcpNoDelay(true);
      s.connect(address, timeoutMillis);
      s.setSoTimeout(timeoutMillis);
      socket = s;
      in = new BufferedInputStream(s.getInputStream(), 16 * 1024);
      out = s.getOutputStream();
    }
    out.write(request); // one write: head and body in one segment
    String statusLine = line();
    if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
      throw new IOException("not an HTTP/1.1 answer: " + statusLine);
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    int length = -1;
    boolean chunked = false;
    boolean closes = false;
    for (String h = line(); !h.isEmpty(); h = line()) {
      int colon = h.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = h.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> length = Integer.parseInt(value);
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        case "connection" -> closes = value.equalsIgnoreCase("close");
        default -> { }
      }
    }
    String body;
    if (chunked) {
      body = chunkedBody();
    } else if (length >= 0) {
      body = new String(exactly(length), StandardCharsets.UTF_8);
    } else {
      body = new String(in.readAllBytes(), StandardCharsets.UTF_8); // delimited by the close
      closes = true;
    }
    if (closes) {
      close();
    }
    return new Response(status, body);
  }

  private String chunkedBody() throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String size = line();
      int semicolon = size.indexOf(';');
      int n = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
      if (n == 0) {
        while (!line().isEmpty()) {
          // trailers: none expected, skipped
        }
        return body.toString(StandardCharsets.UTF_8);
      }
      body.write(exactly(n));
      line(); // the CRLF after the chunk
    }
  }

  private byte[] exactly(int n) throws IOException {
    byte[] b = in.readNBytes(n);
    if (b.length < n) {
      throw new EOFException("the answer ended after " + b.length + " of " + n + " bytes");
    }
    return b;
  }

  /** A header line without its CRLF; EOF before any byte of it means the server closed the connection. */
  private String line() throws IOException {
    StringBuilder sb = new StringBuilder(64);
    int c;
    while ((c = in.read()) != '\n') {
      if (c < 0) {
        throw new EOFException("the server closed the connection");
      }
      if (c != '\r') {
        sb.append((char) c);
      }
    }
    return sb.toString();
  }

  @Override
  public void close() {
    Socket s = socket;
    socket = null;
    in = null;
    out = null;
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }
}
