package dev.baton.reliability.infra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command line to its end and returns its output; a non-zero exit or a timeout is an exception. */
public final class Cmd {

  private Cmd() {}

  public static String run(List<String> command, Map<String, String> env, long timeoutSeconds) {
    return run(command, env, timeoutSeconds, true);
  }

  /** @param check throw on a non-zero exit */
  public static String run(List<String> command, Map<String, String> env, long timeoutSeconds, boolean check) {
    try {
      Path out = Files.createTempFile("baton-cmd", ".log");
      try {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException("timed out after " + timeoutSeconds + "s: " + String.join(" ", command)
              + "\n" + Files.readString(out, StandardCharsets.UTF_8));
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        if (check && p.exitValue() != 0) {
          throw new IllegalStateException("exit " + p.exitValue() + ": " + String.join(" ", command) + "\n" + output);
        }
        return output;
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + command.get(0), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + command.get(0), e);
    }
  }

  /** Deletes a directory tree, quietly. */
  public static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    run(List.of("rm", "-rf", dir.toString()), Map.of(), 60, false);
  }

  public static int freePort() {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
