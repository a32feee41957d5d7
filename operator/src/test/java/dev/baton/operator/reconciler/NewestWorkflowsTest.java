package dev.baton.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.Optional;
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

    assertThat(WorkflowReconciler.newest(Optional.of(oldChild), Optional.of(newChild))).contains(newChild);
    assertThat(WorkflowReconciler.newest(Optional.of(newChild), Optional.of(oldChild)))
        .as("the primary cache ahead").contains(newChild);
  }

  @Test
  void aWorkflowOnlyOneInformerHasYetIsThereAndOpaqueVersionsKeepThePrimarysCopy() {
    Workflow fresh = workflow("refunds", "60");
    Workflow primary = workflow("checkout", "abc");
    Workflow peer = workflow("checkout", "def");

    assertThat(WorkflowReconciler.newest(Optional.empty(), Optional.of(fresh))).contains(fresh);
    assertThat(WorkflowReconciler.newest(Optional.of(fresh), Optional.empty())).contains(fresh);
    assertThat(WorkflowReconciler.newest(Optional.of(primary), Optional.of(peer))).contains(primary);
  }
}
