package dev.baton.cli;

import dev.baton.api.rbac.InstanceRoles;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * {@code baton dev --auth kubernetes}: the dev API made to answer as a cluster with Baton's chart installed would.
 * Baton's instance roles ({@link InstanceRoles}, joining {@code view} and {@code edit}), and a ServiceAccount for the
 * operator, allowed to list instances everywhere, whose token the operator sends to the runtime.
 */
final class DevAccess {

  static final String NAMESPACE = "baton-system";
  static final String OPERATOR = "baton-operator";
  /** A year: the dev stack lives for hours, and nothing here renews a token. */
  private static final long OPERATOR_TOKEN_SECONDS = 365L * 24 * 3600;

  private DevAccess() {}

  /** Applies the roles and the operator's ServiceAccount; the operator's token for the runtime. */
  static String prepare(KubernetesClient client) {
    client.resource(InstanceRoles.view("baton-instances-view")).create();
    client.resource(InstanceRoles.edit("baton-instances-edit")).create();
    client.resource(InstanceRoles.operatorReader("baton-operator-instances")).create();
    client.resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
    client.resource(new ServiceAccountBuilder().withNewMetadata().withNamespace(NAMESPACE).withName(OPERATOR)
        .endMetadata().build()).create();
    client.resource(new ClusterRoleBindingBuilder().withNewMetadata().withName("baton-operator-instances")
        .endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "baton-operator-instances")
        .addNewSubject().withKind("ServiceAccount").withNamespace(NAMESPACE).withName(OPERATOR).endSubject()
        .build()).create();
    TokenRequest request = new TokenRequestBuilder().withNewSpec().withExpirationSeconds(OPERATOR_TOKEN_SECONDS)
        .endSpec().build();
    return client.serviceAccounts().inNamespace(NAMESPACE).withName(OPERATOR).tokenRequest(request).getStatus()
        .getToken();
  }
}
