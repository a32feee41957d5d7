package dev.baton.devapi;

/** The kubeconfig that points kubectl at the dev API: plain HTTP on localhost, no credentials, namespace default. */
final class Kubeconfig {

  static final String CONTEXT = "baton-dev";

  private Kubeconfig() {}

  static String forServer(String url) {
    return """
        # Written by the Baton dev API. Use it with: export KUBECONFIG=<this file>
        apiVersion: v1
        kind: Config
        clusters:
        - name: %1$s
          cluster:
            server: %2$s
        users:
        - name: %1$s
          user: {}
        contexts:
        - name: %1$s
          context:
            cluster: %1$s
            user: %1$s
            namespace: default
        current-context: %1$s
        preferences: {}
        """.formatted(CONTEXT, url);
  }
}
