package dev.baton.devapi.rbac;

import static dev.baton.devapi.rbac.AccessRequest.nonResource;
import static dev.baton.devapi.rbac.AccessRequest.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RbacAuthorizerTest {

  private static final String BATON = "baton.dev";
  private static final UserInfo CI = UserInfo.serviceAccount("team-a", "ci", "uid-ci");
  private static final UserInfo TEAM_B_CI = UserInfo.serviceAccount("team-b", "ci", "uid-b");
  private static final UserInfo ALICE = new UserInfo("alice", "", List.of(UserInfo.AUTHENTICATED));
  private static final UserInfo AUDITOR = new UserInfo("bob", "", List.of("auditors", UserInfo.AUTHENTICATED));
  private static final UserInfo OPERATOR = new UserInfo("carol", "", List.of(UserInfo.AUTHENTICATED));
  private static final UserInfo MASTER = new UserInfo("root", "", List.of(RbacAuthorizer.MASTERS));

  /** Baton's roles as its chart writes them, plus one binding of each kind. */
  private static RbacPolicy policy(ClusterRole... more) {
    List<ClusterRole> clusterRoles = new ArrayList<>(DefaultClusterRoles.all());
    clusterRoles.add(clusterRole("baton-edit", "aggregate-to-edit",
        rule(List.of(BATON), List.of("workflows", "workflows/instances"), "create", "update", "delete")));
    clusterRoles.add(clusterRole("baton-view", "aggregate-to-view",
        rule(List.of(BATON), List.of("workflows", "workerservices"), "get", "list")));
    clusterRoles.add(clusterRole("baton-everything", null, rule(List.of(BATON), List.of("*"), "*")));
    clusterRoles.add(clusterRole("status-writer", null, rule(List.of("*"), List.of("*/status"), "update")));
    clusterRoles.add(clusterRole("health", null,
        new PolicyRuleBuilder().withNonResourceURLs("/healthz", "/metrics/*").withVerbs("get").build()));
    clusterRoles.addAll(List.of(more));
    List<Role> roles = List.of(new RoleBuilder().withNewMetadata().withName("replayer").withNamespace("team-a")
        .endMetadata()
        .withRules(new PolicyRuleBuilder().withApiGroups(BATON).withResources("workerservices/deadletters")
            .withResourceNames("payment").withVerbs("create").build())
        .build());
    List<RoleBinding> roleBindings = List.of(
        roleBinding("ci-edit", "team-a", "ClusterRole", "edit", serviceAccount("ci", "team-a")),
        // no namespace on the subject: the binding's own
        roleBinding("ci-replays", "team-a", "Role", "replayer", serviceAccount("ci", null)),
        roleBinding("sas-view", "team-b", "ClusterRole", "view", group("system:serviceaccounts:team-b")),
        roleBinding("dangling", "team-c", "ClusterRole", "gone", serviceAccount("ci", "team-a")));
    List<ClusterRoleBinding> clusterRoleBindings = List.of(
        clusterRoleBinding("auditors-view", "view", group("auditors")),
        clusterRoleBinding("alice-baton", "baton-everything",
            new SubjectBuilder().withKind("User").withApiGroup("rbac.authorization.k8s.io").withName("alice").build()),
        clusterRoleBinding("carol-status", "status-writer",
            new SubjectBuilder().withKind("User").withName("carol").build()),
        clusterRoleBinding("health", "health", group(UserInfo.AUTHENTICATED)));
    return new RbacPolicy(roles, clusterRoles, roleBindings, clusterRoleBindings);
  }

  static Stream<Arguments> decisions() {
    return Stream.of(
        arguments("a ServiceAccount bound to edit in team-a starts instances there", CI,
            resource("create", BATON, "workflows", "instances", "team-a", "order"), true,
            "RBAC: allowed by RoleBinding \"ci-edit/team-a\" of ClusterRole \"edit\" to ServiceAccount \"ci/team-a\""),
        arguments("but not in team-b", CI,
            resource("create", BATON, "workflows", "instances", "team-b", "order"), false,
            "RBAC: no rule allows \"create\" on \"workflows/instances\" \"order\" in group \"baton.dev\" in namespace"
                + " \"team-b\" for user \"system:serviceaccount:team-a:ci\""),
        arguments("nor across namespaces: a RoleBinding grants in its namespace only", CI,
            resource("list", BATON, "workflows", "instances", "", ""), false, "cluster-wide"),
        arguments("edit grants what view grants: view aggregates into edit", CI,
            resource("get", BATON, "workflows", "", "team-a", "order"), true, "ClusterRole \"edit\""),
        arguments("a verb no rule names is not allowed", CI,
            resource("patch", BATON, "workflows", "", "team-a", "order"), false, "\"patch\""),
        arguments("a rule for workflows does not grant its subresources", CI,
            resource("update", BATON, "workflows", "status", "team-a", "order"), false, "workflows/status"),
        arguments("a Role grants a subresource for the names it lists", CI,
            resource("create", BATON, "workerservices", "deadletters", "team-a", "payment"), true,
            "RBAC: allowed by RoleBinding \"ci-replays/team-a\" of Role \"replayer\" to ServiceAccount \"ci/team-a\""),
        arguments("and not for other names", CI,
            resource("create", BATON, "workerservices", "deadletters", "team-a", "shipping"), false, "\"shipping\""),
        arguments("nor without a name", CI,
            resource("create", BATON, "workerservices", "deadletters", "team-a", ""), false, "deadletters"),
        arguments("a wildcard grants every resource and verb of its group, in any namespace", ALICE,
            resource("deletecollection", BATON, "retrypolicies", "", "team-z", ""), true,
            "RBAC: allowed by ClusterRoleBinding \"alice-baton\" of ClusterRole \"baton-everything\" to User \"alice\""),
        arguments("and subresources", ALICE,
            resource("create", BATON, "workflows", "instances", "team-z", "order"), true, "alice-baton"),
        arguments("but not other groups", ALICE,
            resource("get", "", "secrets", "", "team-z", "db"), false, "in group \"\""),
        arguments("*/status is the status of every resource", OPERATOR,
            resource("update", "apps", "deployments", "status", "team-a", "web"), true, "carol-status"),
        arguments("and not the resource itself", OPERATOR,
            resource("update", "apps", "deployments", "", "team-a", "web"), false, "\"deployments\""),
        arguments("a Group subject of a ClusterRoleBinding reads in every namespace and across them", AUDITOR,
            resource("list", BATON, "workerservices", "", "", ""), true,
            "RBAC: allowed by ClusterRoleBinding \"auditors-view\" of ClusterRole \"view\" to Group \"auditors\""),
        arguments("the group of a namespace's ServiceAccounts", TEAM_B_CI,
            resource("get", BATON, "workflows", "", "team-b", "order"), true,
            "to Group \"system:serviceaccounts:team-b\""),
        arguments("is no member of another namespace's groups", TEAM_B_CI,
            resource("get", BATON, "workflows", "", "team-a", "order"), false, "team-b:ci"),
        arguments("paths are granted by URL or prefix", CI, nonResource("get", "/metrics/jvm"), true,
            "to Group \"system:authenticated\""),
        arguments("and verb", CI, nonResource("post", "/healthz"), false, "\"post\" on path \"/healthz\""),
        arguments("the dev API's admin may do anything", UserInfo.ADMIN,
            resource("delete", "", "namespaces", "", "", "team-a"), true, "the dev API's admin"),
        arguments("so may anyone in system:masters", MASTER, nonResource("delete", "/anything"), true,
            "system:masters"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("decisions")
  void decides(String sentence, UserInfo user, AccessRequest request, boolean allowed, String reason) {
    Decision decision = new RbacAuthorizer(policy()).authorize(user, request);
    assertThat(decision.allowed()).as(decision.reason()).isEqualTo(allowed);
    assertThat(decision.reason()).contains(reason);
  }

  @Test
  void aClusterRoleLabelledForEditCountsForEditAsSoonAsItExists() {
    AccessRequest replay = resource("create", BATON, "workerservices", "deadletters", "team-a", "shipping");
    assertThat(new RbacAuthorizer(policy()).authorize(CI, replay).allowed()).isFalse();

    ClusterRole replays = clusterRole("baton-replays", "aggregate-to-edit",
        rule(List.of(BATON), List.of("workerservices/deadletters"), "create"));
    assertThat(new RbacAuthorizer(policy(replays)).authorize(CI, replay).reason())
        .isEqualTo("RBAC: allowed by RoleBinding \"ci-edit/team-a\" of ClusterRole \"edit\" to ServiceAccount"
            + " \"ci/team-a\"");
  }

  @Test
  void aBindingToARoleThatDoesNotExistIsAnEvaluationError() {
    Decision decision = new RbacAuthorizer(policy())
        .authorize(CI, resource("get", BATON, "workflows", "", "team-c", "order"));
    assertThat(decision.allowed()).isFalse();
    assertThat(decision.evaluationError()).isEqualTo("clusterrole.rbac.authorization.k8s.io \"gone\" not found");
  }

  @Test
  void aggregationLoopsEndAndAnAggregatedRoleDoesNotSelectItself() {
    ClusterRole ping = new ClusterRoleBuilder(clusterRole("ping", "aggregate-to-pong")).editMetadata()
        .addToLabels("loop", "yes").endMetadata()
        .withNewAggregationRule().addNewClusterRoleSelector().addToMatchLabels("loop", "yes").endClusterRoleSelector()
        .endAggregationRule().build();
    assertThat(new RbacAuthorizer(policy(ping)).authorize(CI, resource("get", "", "pods", "", "team-a", ""))
        .allowed()).isFalse();
  }

  private static ClusterRole clusterRole(String name, String aggregateTo, PolicyRule... rules) {
    ClusterRoleBuilder role = new ClusterRoleBuilder().withNewMetadata().withName(name).endMetadata().withRules(rules);
    if (aggregateTo != null) {
      role.editMetadata().addToLabels("rbac.authorization.k8s.io/" + aggregateTo, "true").endMetadata();
    }
    return role.build();
  }

  private static PolicyRule rule(List<String> groups, List<String> resources, String... verbs) {
    return new PolicyRuleBuilder().withApiGroups(groups).withResources(resources).withVerbs(verbs).build();
  }

  private static RoleBinding roleBinding(String name, String namespace, String kind, String role, Subject subject) {
    return new RoleBindingBuilder().withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", kind, role).withSubjects(subject).build();
  }

  private static ClusterRoleBinding clusterRoleBinding(String name, String role, Subject subject) {
    return new ClusterRoleBindingBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", role).withSubjects(subject).build();
  }

  private static Subject serviceAccount(String name, String namespace) {
    return new SubjectBuilder().withKind("ServiceAccount").withName(name).withNamespace(namespace).build();
  }

  private static Subject group(String name) {
    return new SubjectBuilder().withKind("Group").withApiGroup("rbac.authorization.k8s.io").withName(name).build();
  }
}
