package dev.baton.devapi;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code BATON_AUTH=kubernetes} needs of the dev API, end to end: a developer makes a ServiceAccount, binds it
 * and gets a token with the real kubectl; the runtime reviews the token and asks whether it may act, with the
 * fabric8 client, as it does against a cluster.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KubernetesAuthIT {

  @TempDir
  static Path tmp;

  private static DevApiServer api;
  private static Kubectl kubectl;
  private static KubernetesClient runtime;
  private static String token;

  @BeforeAll
  static void start() {
    Kubectl.executable();
    api = DevApiServer.start("127.0.0.1", 0);
    kubectl = new Kubectl(api.writeKubeconfig(tmp.resolve("kubeconfig")), tmp.resolve("kube-cache"));
    runtime = api.client();
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
  }

  @Test
  @Order(1)
  void kubectlCreatesAServiceAccountAndBindsItToEditWhichBatonsRolesJoin() {
    assertThat(kubectl.ok("create", "namespace", "team-a")).contains("namespace/team-a created");
    assertThat(kubectl.ok("create", "serviceaccount", "ci", "-n", "team-a")).contains("serviceaccount/ci created");
    assertThat(kubectl.ok("get", "sa", "-n", "team-a")).containsPattern("NAME\\s+SECRETS\\s+AGE\\s+ci\\s+0");

    Kubectl.Result role = kubectl.runWithInput("""
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata:
          name: baton-runtime-edit
          labels: {rbac.authorization.k8s.io/aggregate-to-edit: "true"}
        rules:
          - apiGroups: [baton.dev]
            resources: [workflows/instances, workerservices/deadletters]
            verbs: [get, list, create, update, delete]
        """, "apply", "-f", "-");
    assertThat(role.exitCode()).as(role.all()).isZero();
    assertThat(kubectl.ok("create", "rolebinding", "ci-edit", "--clusterrole=edit", "--serviceaccount=team-a:ci",
        "-n", "team-a")).contains("rolebinding.rbac.authorization.k8s.io/ci-edit created");
    assertThat(kubectl.ok("get", "rolebindings", "-n", "team-a")).containsPattern("ci-edit\\s+ClusterRole/edit");
    assertThat(kubectl.ok("get", "clusterroles")).contains("cluster-admin", "admin", "edit", "view");
  }

  @Test
  @Order(2)
  void theRuntimeReviewsATokenFromKubectlCreateToken() {
    token = kubectl.ok("create", "token", "ci", "-n", "team-a", "--duration=1h").trim();
    String uid = kubectl.ok("get", "sa", "ci", "-n", "team-a", "-o", "jsonpath={.metadata.uid}");

    TokenReviewStatus review = review(token, List.of());
    assertThat(review.getAuthenticated()).isTrue();
    assertThat(review.getError()).isNull();
    assertThat(review.getUser().getUsername()).isEqualTo("system:serviceaccount:team-a:ci");
    assertThat(review.getUser().getGroups())
        .containsExactly("system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated");
    assertThat(review.getUser().getUid()).isEqualTo(uid).isNotBlank();
  }

  @Test
  @Order(3)
  void theServiceAccountMayStartInstancesInTeamAButNotInTeamBNorAcrossNamespaces() {
    TokenReviewStatus review = review(token, List.of());

    SubjectAccessReviewStatus teamA = access(review, "create", "workflows", "instances", "team-a", "order");
    assertThat(teamA.getAllowed()).isTrue();
    assertThat(teamA.getReason()).isEqualTo("RBAC: allowed by RoleBinding \"ci-edit/team-a\" of ClusterRole"
        + " \"edit\" to ServiceAccount \"ci/team-a\"");

    SubjectAccessReviewStatus teamB = access(review, "create", "workflows", "instances", "team-b", "order");
    assertThat(teamB.getAllowed()).isFalse();
    assertThat(teamB.getDenied()).isFalse();
    assertThat(teamB.getReason()).contains("\"create\" on \"workflows/instances\" \"order\"",
        "in namespace \"team-b\"", "system:serviceaccount:team-a:ci");

    assertThat(access(review, "list", "workflows", "instances", "", "").getAllowed()).isFalse();
    assertThat(access(review, "create", "workerservices", "deadletters", "team-a", "payment").getAllowed()).isTrue();
  }

  @Test
  @Order(4)
  void kubectlAuthCanIAsTheServiceAccountSaysTheSame() {
    Kubectl.Result teamA = kubectl.run("auth", "can-i", "create", "workflows", "--subresource=instances",
        "--as=system:serviceaccount:team-a:ci", "-n", "team-a");
    assertThat(teamA.exitCode()).as(teamA.all()).isZero();
    assertThat(teamA.out().trim()).isEqualTo("yes");

    Kubectl.Result teamB = kubectl.run("auth", "can-i", "create", "workflows", "--subresource=instances",
        "--as=system:serviceaccount:team-a:ci", "-n", "team-b");
    assertThat(teamB.exitCode()).isOne();
    assertThat(teamB.out()).startsWith("no - RBAC: no rule allows");

    // without --as: the admin, whom the kubeconfig makes of everyone
    assertThat(kubectl.ok("auth", "can-i", "delete", "namespaces").trim()).isEqualTo("yes");
  }

  @Test
  @Order(5)
  void tokensForAnAudienceAreReviewedForIt() {
    String forBaton = kubectl.ok("create", "token", "ci", "-n", "team-a", "--audience=baton").trim();
    assertThat(review(forBaton, List.of("baton")).getAudiences()).containsExactly("baton");
    assertThat(review(forBaton, List.of()).getError()).contains("invalid for the target audiences");

    // the fabric8 client's TokenRequest (JSON, where kubectl sends protobuf)
    String fromClient = runtime.serviceAccounts().inNamespace("team-a").withName("ci")
        .tokenRequest(new TokenRequestBuilder().withNewSpec().withAudiences("baton").withExpirationSeconds(600L)
            .endSpec().build())
        .getStatus().getToken();
    assertThat(review(fromClient, List.of("baton")).getAuthenticated()).isTrue();
  }

  @Test
  @Order(6)
  void tokensItDidNotIssueOrWhoseServiceAccountIsGoneDoNotAuthenticate() {
    assertThat(review("not-a-token-of-this-api", List.of()).getError()).contains("not issued by this dev API");
    assertThat(kubectl.run("create", "token", "nobody", "-n", "team-a").err())
        .contains("serviceaccounts \"nobody\" not found");
    assertThat(kubectl.run("create", "token", "ci", "-n", "team-a", "--duration=5m").err())
        .contains("may not specify a duration less than 10 minutes");

    kubectl.ok("delete", "serviceaccount", "ci", "-n", "team-a");
    TokenReviewStatus gone = review(token, List.of());
    assertThat(gone.getAuthenticated()).isFalse();
    assertThat(gone.getError()).contains("service account team-a/ci has been deleted");
  }

  private static TokenReviewStatus review(String token, List<String> audiences) {
    TokenReview review = new TokenReviewBuilder().withNewSpec().withToken(token).withAudiences(audiences).endSpec()
        .build();
    return runtime.authentication().v1().tokenReviews().create(review).getStatus();
  }

  /** As the runtime asks: the reviewed user, uid and groups, and the Baton resource it is about. */
  private static SubjectAccessReviewStatus access(TokenReviewStatus user, String verb, String resource,
      String subresource, String namespace, String name) {
    return runtime.authorization().v1().subjectAccessReview().create(new SubjectAccessReviewBuilder().withNewSpec()
        .withUser(user.getUser().getUsername()).withUid(user.getUser().getUid())
        .withGroups(user.getUser().getGroups())
        .withResourceAttributes(new ResourceAttributesBuilder().withGroup("baton.dev").withResource(resource)
            .withSubresource(subresource).withVerb(verb).withNamespace(namespace).withName(name).build())
        .endSpec().build()).getStatus();
  }
}
