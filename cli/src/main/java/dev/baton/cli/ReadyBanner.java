package dev.baton.cli;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** The one READY line of {@code baton dev} and what to type next. */
final class ReadyBanner {

  static final String READY = "READY";

  private ReadyBanner() {}

  static void print(PrintStream out, DevStack stack, Path cwd) {
    print(out, stack.api().url(), stack.runtimeUrl(), stack.kubeconfig(), cwd);
  }

  /** The banner for a dev API at {@code apiUrl} and a runtime at {@code runtime} (e.g. {@code http://127.0.0.1:8080}). */
  static void print(PrintStream out, String apiUrl, String runtime, Path kubeconfig, Path cwd) {
    out.println();
    out.println(READY + ": Baton dev is up. Kubernetes API " + apiUrl + ", runtime " + runtime
        + ", web UI " + runtime + "/ui/ (Ctrl-C stops it)");
    out.println();
    out.println("  export KUBECONFIG=" + kubeconfig);
    out.println("  kubectl apply -f " + examples(cwd));
    out.println("  kubectl get workerservices,workflows,retrypolicies");
    out.println("  curl -s -X POST " + runtime + "/api/v1/namespaces/default/workflows/order-fulfilment/instances \\");
    out.println("       -H 'Content-Type: application/json' \\");
    out.println("       -d '{\"businessKey\": \"order-1\", \"input\": {\"sku\": \"book\", \"quantity\": 1, \"amount\": 42}}'");
    out.println("  bin/baton get order-fulfilment" + (runtime.equals("http://127.0.0.1:8080") ? ""
        : " --runtime-url " + runtime) + "        # then: bin/baton describe <id>");
    out.println();
    out.println("  (the dev API is a development aid: kubectl get/describe/apply/delete/wait and get -w work;"
        + " --server-side and garbage collection of owned objects do not)");
  }

  /** {@code examples/order-saga/} relative to where the user is, when the repo is there or above. */
  private static String examples(Path cwd) {
    Path repo = BatonHome.of(System.getenv(), cwd);
    Path examples = repo.resolve("examples/order-saga");
    if (!Files.isDirectory(examples)) {
      return "<your resources>.yaml";
    }
    Path absolute = examples.toAbsolutePath().normalize();
    return (absolute.startsWith(cwd) ? cwd.relativize(absolute) : absolute) + "/";
  }
}
