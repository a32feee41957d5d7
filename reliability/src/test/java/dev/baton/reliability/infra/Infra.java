package dev.baton.reliability.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the whole suite shares, started once per JVM on first use: a test CA, the private RabbitMQ node and the
 * private PostgreSQL cluster. A JVM shutdown hook stops both and deletes their files (also when a test fails or the
 * run is interrupted); scenarios isolate themselves with a vhost and databases of their own.
 */
public final class Infra {

  private static Infra instance;

  public final Path dir;
  public final TestCa ca;
  public final PrivateRabbit rabbit;
  public final PrivatePostgres postgres;

  private Infra(Path dir, TestCa ca, PrivateRabbit rabbit, PrivatePostgres postgres) {
    this.dir = dir;
    this.ca = ca;
    this.rabbit = rabbit;
    this.postgres = postgres;
  }

  public static synchronized Infra get() {
    if (instance == null) {
      try {
        Path dir = Files.createTempDirectory("baton-reliability-");
        TestCa ca = TestCa.create(dir.resolve("ca"));
        Cmd.run(java.util.List.of("chmod", "-R", "go+rX", dir.toString()), java.util.Map.of(), 30);
        PrivateRabbit rabbit = PrivateRabbit.start(dir.resolve("rabbit"), ca);
        PrivatePostgres postgres;
        try {
          postgres = PrivatePostgres.start(dir.resolve("pg").resolve("cluster"), ca);
        } catch (RuntimeException e) {
          rabbit.close();
          Cmd.deleteTree(dir);
          throw e;
        }
        instance = new Infra(dir, ca, rabbit, postgres);
        // One hook, in order (hooks run concurrently with each other): the node, the cluster, then their files.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          rabbit.close();
          postgres.close();
          // whatever child process a failed test left behind (runtime or worker JVMs, the CLI)
          ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
          Cmd.deleteTree(dir);
        }, "baton-reliability-teardown"));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return instance;
  }

  /** Where logs of child processes go (kept after the run, under target/). */
  public static Path logDir() {
    Path p = Path.of("target", "reliability-logs");
    try {
      Files.createDirectories(p);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return p;
  }
}
