package dev.baton.reliability.infra;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A PostgreSQL cluster of the suite's own (initdb + pg_ctl as the {@code postgres} OS user) on a free port, with TLS
 * on (the server certificate of {@link TestCa}) and trust authentication, in a temporary directory. The shared
 * server on 5432 is never touched. {@link Infra} stops it in a JVM shutdown hook.
 */
public final class PrivatePostgres implements AutoCloseable {

  private static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

  private final Path dir;
  private final int port;
  private volatile boolean closed;

  private PrivatePostgres(Path dir) {
    this.dir = dir;
    this.port = Cmd.freePort();
  }

  public static PrivatePostgres start(Path dir, TestCa ca) {
    if (!Files.isExecutable(BIN.resolve("initdb"))) {
      throw new IllegalStateException("PostgreSQL 15 is not installed in " + BIN);
    }
    PrivatePostgres pg = new PrivatePostgres(dir);
    try {
      Files.createDirectories(dir);
      Files.copy(ca.serverCert(), dir.resolve("server.crt"));
      Files.copy(ca.serverKey(), dir.resolve("server.key"));
      Files.copy(ca.caCert(), dir.resolve("ca.crt"));
      Cmd.run(List.of("chown", "-R", "postgres:postgres", dir.toString()), Map.of(), 30);
      Cmd.run(List.of("chmod", "700", dir.toString()), Map.of(), 30);
      Cmd.run(List.of("chmod", "600", dir.resolve("server.key").toString()), Map.of(), 30);
      // the parent (a temporary directory of root) must let postgres through
      Cmd.run(List.of("chmod", "755", dir.getParent().toString()), Map.of(), 30);
      pg.asPostgres(120, BIN.resolve("initdb").toString(), "-D", pg.data(), "-A", "trust", "-U", "postgres",
          "-E", "UTF8", "--no-sync");
      pg.startServer();
      return pg;
    } catch (Exception e) {
      pg.close();
      throw new IllegalStateException("cannot start a private PostgreSQL in " + dir + ": " + e.getMessage(), e);
    }
  }

  private String data() {
    return dir.resolve("data").toString();
  }

  private String asPostgres(long timeout, String... command) {
    List<String> cmd = new java.util.ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
    cmd.addAll(List.of(command));
    return Cmd.run(cmd, Map.of(), timeout);
  }

  /** Starts the server (again) and waits until it accepts connections. */
  public void startServer() {
    String options = "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + dir
        + " -c ssl=on -c ssl_cert_file=" + dir.resolve("server.crt") + " -c ssl_key_file=" + dir.resolve("server.key")
        + " -c ssl_ca_file=" + dir.resolve("ca.crt") + " -c fsync=off -c max_connections=300"
        + " -c shared_buffers=64MB -c log_min_messages=warning";
    asPostgres(120, BIN.resolve("pg_ctl").toString(), "-D", data(), "-l", dir.resolve("server.log").toString(),
        "-w", "-t", "60", "-o", options, "start");
  }

  /** {@code pg_ctl stop -m fast}: active transactions are rolled back, every connection is cut. */
  public void stopServer() {
    asPostgres(120, BIN.resolve("pg_ctl").toString(), "-D", data(), "-m", "fast", "-w", "stop");
  }

  public int port() {
    return port;
  }

  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** The same database over TLS, the server's certificate checked against {@code caFile} and its host name. */
  public String jdbcUrlVerifyFull(String database, Path caFile) {
    return "jdbc:postgresql://localhost:" + port + "/" + database + "?sslmode=verify-full&sslrootcert=" + caFile;
  }

  public String createDatabase(String prefix) {
    String name = prefix + "_" + UUID.randomUUID().toString().substring(0, 8);
    admin("CREATE DATABASE " + name);
    return name;
  }

  public void admin(String sql) {
    try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("private PostgreSQL refused: " + sql, e);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (Files.exists(dir.resolve("data").resolve("postmaster.pid"))) {
      try {
        asPostgres(60, BIN.resolve("pg_ctl").toString(), "-D", data(), "-m", "immediate", "-w", "stop");
      } catch (RuntimeException e) {
        // not running
      }
    }
    Cmd.deleteTree(dir);
  }
}
