package dev.baton.api.rbac;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import java.util.List;
import java.util.Map;

/**
 * Who may do what with instances, as Kubernetes RBAC: the runtime asks a SubjectAccessReview for group
 * {@code baton.dev}, resource {@code workflows}, subresource {@code instances} in the Workflow's namespace ({@code
 * get}/{@code list} to read, {@code create} to start, {@code update} to signal or retry, {@code delete} to cancel),
 * and {@code workerservices/deadletters} for dead letters ({@code create} replays). These two ClusterRoles grant
 * them and join Kubernetes' {@code view} and {@code edit} (and {@code admin}) by their aggregation labels. The Helm
 * chart renders the same roles (a chart test compares them) and {@code bin/baton dev --auth kubernetes} applies them.
 */
public final class InstanceRoles {

  public static final String GROUP = "baton.dev";
  public static final String INSTANCES = "workflows/instances";
  public static final String DEAD_LETTERS = "workerservices/deadletters";

  public static final List<String> READ = List.of("get", "list");
  public static final List<String> WRITE = List.of("get", "list", "create", "update", "delete");
  public static final List<String> REPLAY = List.of("get", "list", "create");

  private static final String AGGREGATE = "rbac.authorization.k8s.io/aggregate-to-";

  private InstanceRoles() {}

  /** Reads instances and dead letters; joins {@code view}. */
  public static ClusterRole view(String name) {
    return role(name, Map.of(AGGREGATE + "view", "true"),
        rule(INSTANCES, READ), rule(DEAD_LETTERS, READ));
  }

  /** Starts, signals, retries and cancels instances, and replays dead letters; joins {@code edit} and {@code admin}. */
  public static ClusterRole edit(String name) {
    return role(name, Map.of(AGGREGATE + "edit", "true", AGGREGATE + "admin", "true"),
        rule(INSTANCES, WRITE), rule(DEAD_LETTERS, REPLAY));
  }

  /**
   * What the operator needs of the runtime when it checks Kubernetes tokens: {@code list} on instances in every
   * namespace, for the live counts and the result routes ({@code /api/v1/counts}, {@code /api/v1/routes}).
   */
  public static ClusterRole operatorReader(String name) {
    return role(name, Map.of(), rule(INSTANCES, List.of("list")));
  }

  private static ClusterRole role(String name, Map<String, String> labels, PolicyRule... rules) {
    return new ClusterRoleBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
        .withRules(rules).build();
  }

  private static PolicyRule rule(String resource, List<String> verbs) {
    return new PolicyRuleBuilder().withApiGroups(GROUP).withResources(resource).withVerbs(verbs).build();
  }
}
