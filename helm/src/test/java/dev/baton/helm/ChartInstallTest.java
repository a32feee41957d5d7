package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.DryRun;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.Release;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code helm install --dry-run} (client only: there is no cluster here) with each value set: the chart installs, and
 * NOTES.txt tells how to check the operator, reach the runtime (with a Kubernetes token, or in token mode its API
 * token) and apply the first example, and warns about missing credentials.
 */
class ChartInstallTest {

  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void installsAndSaysWhatToDoNext(ValueSet values) {
    // --dry-run=client, as helm's own default: nothing asks a cluster.
    InstallCommand install = new Helm(Chart.renderable()).install().withName(Chart.RELEASE).withNamespace(Chart.NAMESPACE)
        .dryRun().withDryRunOption(DryRun.CLIENT).clientOnly();
    Release release = (values.file() == null ? install : install.withValuesFile(values.file())).call();

    assertThat(release.getStatus()).isEqualTo("pending-install");
    String notes = release.getOutput().substring(release.getOutput().indexOf("NOTES:"));
    assertThat(notes)
        .contains("kubectl -n baton-system rollout status deployment/baton-operator")
        .contains("kubectl apply -n ")
        .contains("-f examples/order-saga/")
        .contains("kubectl apply --server-side -f helm/baton/crds/");
    if (values != ValueSet.OPERATOR_ONLY) {
      assertThat(notes).contains("port-forward service/baton-runtime 8080:8080")
          .contains("http://baton-runtime.baton-system.svc:8080");
    }
    if (values != ValueSet.OPERATOR_ONLY && values.kubernetesAuth()) {
      // How a ServiceAccount may, and how its token reaches the CLI and the UI.
      String audience = values == ValueSet.AUDIENCES ? " --audience baton" : "";
      assertThat(notes).contains("kubectl -n <ns> create token <sa>" + audience + " | bin/baton login --token-stdin")
          .contains("sign-in page");
      assertThat(notes).contains(values == ValueSet.WATCH_NAMESPACES ? "bind it to a Role of <ns>"
          : "--clusterrole=baton-instances-edit --serviceaccount=<ns>:<sa>");
    }
    if (values != ValueSet.OPERATOR_ONLY && !values.kubernetesAuth()) {
      // Where the API token is, and how the CLI gets it.
      String secret = values == ValueSet.EXISTING_SECRETS ? "baton-runtime-api-tokens" : "baton-runtime-api";
      String key = values == ValueSet.EXISTING_SECRETS ? "api-token" : "token";
      assertThat(notes).contains("export BATON_RUNTIME_TOKEN=$(kubectl -n baton-system get secret " + secret
          + " -o jsonpath='{.data." + key + "}' | base64 -d)")
          .contains("curl -H \"Authorization: Bearer $BATON_RUNTIME_TOKEN\"");
    }
    if (values == ValueSet.OPERATOR_ONLY) {
      assertThat(notes).contains("The operator sends http://baton-runtime.elsewhere.svc:8080 a token of its "
          + "ServiceAccount");
    }
    if (values == ValueSet.SERVICE_MONITOR) {
      assertThat(notes).as("Prometheus reads the read-only token in the ServiceMonitor's namespace")
          .contains("key read-token").contains("in namespace monitoring too");
    }
    boolean credentialsGiven = values == ValueSet.QUICK_START || values == ValueSet.EXISTING_SECRETS;
    assertThat(notes.contains("WARNING")).as("warning about missing credentials with %s", values)
        .isEqualTo(!credentialsGiven);
    if (values == ValueSet.WATCH_NAMESPACES) {
      assertThat(notes).contains("Baton follows only: team-a, team-b").contains("kubectl apply -n team-a")
          .contains("Cluster-wide only what Kubernetes tokens");
    }
  }
}
