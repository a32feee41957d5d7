package dev.baton.devapi;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real kubectl, run as a process against a kubeconfig, with its own discovery cache (kubectl caches discovery
 * per server address; a fresh folder per test class keeps runs independent).
 */
public final class Kubectl {

  /** What one kubectl run printed and how it ended. */
  public record Result(int exitCode, String out, String err) {

    public String all() {
      return out + err;
    }
  }

  private final Path kubeconfig;
  private final Path cacheDir;

  public Kubectl(Path kubeconfig, Path cacheDir) {
    this.kubeconfig = kubeconfig;
    this.cacheDir = cacheDir;
  }

  /** Fails the test (never skips it) when kubectl is not installed. */
  public static String executable() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, "kubectl");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return fail("kubectl is not installed (not on PATH): these tests drive the real kubectl against the dev API."
        + " Install kubectl 1.32 (e.g. apt-get install kubectl) and run them again.");
  }

  public Result run(String... args) {
    return runWithInput(null, args);
  }

  /** Runs kubectl with {@code stdin} (may be null) and waits up to a minute. */
  public Result runWithInput(String stdin, String... args) {
    Process process = start(args);
    try {
      try (var in = process.getOutputStream()) {
        if (stdin != null) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      }
      var out = process.getInputStream().readAllBytes();
      var err = process.getErrorStream().readAllBytes();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        fail("kubectl " + String.join(" ", args) + " did not finish within a minute");
      }
      return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8),
          new String(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Starts kubectl without waiting for it, e.g. {@code get -w} or {@code delete} on an object with finalizers. */
  public Process start(String... args) {
    List<String> command = new ArrayList<>();
    command.add(executable());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().put("KUBECACHEDIR", cacheDir.toString());
    try {
      return pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kubectl", e);
    }
  }

  /** Runs kubectl and fails the test, with everything it printed, when it does not exit 0. */
  public String ok(String... args) {
    Result r = run(args);
    if (r.exitCode() != 0) {
      fail("kubectl " + String.join(" ", args) + " exited " + r.exitCode() + ":\n" + r.all());
    }
    return r.out();
  }
}
