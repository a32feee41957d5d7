package dev.baton.cli;

import dev.baton.contract.settings.SettingsReader;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code baton bench}: the end-to-end benchmark lives in its own module (bench/, with the test fixtures and the mock
 * API server it needs); this command runs its jar with the same arguments. {@code bin/baton bench} builds and runs
 * that jar directly.
 */
@Command(name = "bench",
    description = {"End-to-end benchmark of the runtime against a raw amqp-client + JDBC ceiling, with sweeps and the "
        + "operator at scale (bench/README.md). Runs bench/target/baton-bench.jar; `baton bench --help` lists its "
        + "options."})
final class BenchCommand implements Callable<Integer> {

  @Unmatched
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    Path jar = BatonHome.of(System.getenv(), Path.of(".")).resolve(Path.of("bench", "target", "baton-bench.jar"));
    if (!Files.isRegularFile(jar)) {
      System.err.println("baton bench: " + jar + " is missing; build it with `mvn -pl bench -am package -DskipTests`"
          + " (bin/baton bench does it for you)");
      return 3;
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    String opts = SettingsReader.read(System.getenv(), r -> r.string("BATON_BENCH_JAVA_OPTS", null));
    if (opts != null) {
      command.addAll(List.of(opts.split("\\s+")));
    }
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(args);
    return new ProcessBuilder(command).inheritIO().directory(new File(".")).start().waitFor();
  }
}
