package dev.baton.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class NewestWorkflowsTest {

  static Workflow workflow(String name, String resourceVersion) {
    Workflow w = new Workflow();
    w.setMetadata(new ObjectMetaBuilder().withNamespace("flows").withName(name).withResourceVersion(resourceVersion)
        .build());
    return w;
  }

  @Test
  void aChildsChangeThePeersInformerHasAlreadyIsTheOneThatCounts() {
    Workflow oldChild = workflow("invoicing", "41");
    Workflow newChild = workflow("invoicing", "57");
    Workflow parent = workflow("checkout", "40");

    assertThat(WorkflowReconciler.newest(List.of(parent, oldChild), List.of(parent, newChild)))
        .containsExactlyInAnyOrder(parent, newChild);
    assertThat(WorkflowReconciler.newest(List.of(parent, newChild), List.of(oldChild)))
        .as("the primary cache ahead").containsExactlyInAnyOrder(parent, newChild);
  }

  @Test
  void aWorkflowOnlyOneInformerHasYetIsThereAndOpaqueVersionsKeepThePrimarysCopy() {
    Workflow fresh = workflow("refunds", "60");
    Workflow primary = workflow("checkout", "abc");
    Workflow peer = workflow("checkout", "def");

    assertThat(WorkflowReconciler.newest(List.of(primary), List.of(peer, fresh)))
        .containsExactlyInAnyOrder(primary, fresh);
  }
}
