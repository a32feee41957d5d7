package dev.baton.runtime.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.sandbox.MockKubernetes;
import dev.baton.sandbox.Sandbox;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The watch of Workflows survives whatever its listeners throw, and fields of a newer CRD. */
class WorkflowWatcherIT {

  static Sandbox stack;

  @BeforeAll
  static void start() {
    stack = Sandbox.builder("watcher").kubernetes(MockKubernetes.WORKFLOW_CRD).start();
  }

  @AfterAll
  static void stop() {
    stack.close();
  }

  static WorkflowSpec spec() {
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity("order");
    spec.setSteps(List.of(new StepSpec("go", "svc", "go")));
    return spec;
  }

  /** Fails on the code before: the Error ended the informer's event thread, and the next Workflow was never seen. */
  @Test
  void aListenerThatThrowsAnErrorDoesNotEndTheWatch() {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    AtomicBoolean thrown = new AtomicBoolean();
    WorkflowWatcher watcher = WorkflowWatcher.start(stack.client(), List.of(), new WorkflowWatcher.Listener() {
      @Override
      public void changed(Workflow workflow) {
        if (thrown.compareAndSet(false, true)) {
          throw new StackOverflowError("test hook: a listener blew its stack");
        }
        seen.add(workflow.getMetadata().getName());
      }

      @Override
      public void deleted(Workflow workflow) {}
    });
    try {
      stack.applyWorkflow("first", spec());
      await().atMost(Duration.ofSeconds(10)).until(thrown::get);
      stack.applyWorkflow("second", spec());
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("second"));
    } finally {
      watcher.close();
    }
  }

  /**
   * A Workflow with fields this runtime does not know (a newer CRD; the mock API server does not prune) is seen with
   * the fields it knows, and the watch goes on.
   */
  @Test
  void aWorkflowWithUnknownFieldsIsSeenWithItsKnownFieldsAndTheWatchGoesOn() {
    Map<String, Workflow> seen = new ConcurrentHashMap<>();
    WorkflowWatcher watcher = WorkflowWatcher.start(stack.client(), List.of(), new WorkflowWatcher.Listener() {
      @Override
      public void changed(Workflow workflow) {
        seen.put(workflow.getMetadata().getName() + "@" + workflow.getSpec().getSteps().size(), workflow);
      }

      @Override
      public void deleted(Workflow workflow) {}
    });
    try {
      stack.applyWorkflow("newer", spec());
      stack.client().resources(Workflow.class).inNamespace(Sandbox.NAMESPACE).withName("newer")
          .patch(PatchContext.of(PatchType.JSON), """
              [{"op": "add", "path": "/spec/unknownField", "value": 1},
               {"op": "add", "path": "/spec/steps/-", "value": {"name": "then", "service": "svc", "command": "go", "hint": 2}}]
              """);
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.containsKey("newer@2"));
      assertThat(seen.get("newer@2").getSpec().getSteps()).extracting(StepSpec::getName).containsExactly("go", "then");

      stack.applyWorkflow("after", spec());
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.containsKey("after@1"));
    } finally {
      watcher.close();
    }
  }

  /**
   * Fails on the code before: an enum value this runtime does not know (a newer CRD's) failed the read, the informer
   * never handed the Workflow over, and the watch stopped. Now the Workflow is seen, refused as not runnable with the
   * field and the value (a default must not stand in for it), and the watch goes on.
   */
  @Test
  void aWorkflowWithAnEnumValueOfANewerCrdIsSeenRefusedByNameAndTheWatchGoesOn() {
    Map<String, Workflow> seen = new ConcurrentHashMap<>();
    WorkflowWatcher watcher = WorkflowWatcher.start(stack.client(), List.of(), new WorkflowWatcher.Listener() {
      @Override
      public void changed(Workflow workflow) {
        seen.put(workflow.getMetadata().getName() + "@" + workflow.getMetadata().getResourceVersion(), workflow);
      }

      @Override
      public void deleted(Workflow workflow) {}
    });
    try {
      stack.applyWorkflow("newer-enum", spec());
      Workflow patched = stack.client().resources(Workflow.class).inNamespace(Sandbox.NAMESPACE).withName("newer-enum")
          .patch(PatchContext.of(PatchType.JSON), """
              [{"op": "add", "path": "/spec/onFailure", "value": "Retry"}]
              """);
      String key = "newer-enum@" + patched.getMetadata().getResourceVersion();
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.containsKey(key));
      assertThatThrownBy(() -> dev.baton.workflow.WorkflowParser.runnable(Sandbox.NAMESPACE, "newer-enum", 1,
          seen.get(key).getSpec())).hasMessageContaining("spec.onFailure: 'Retry' is not a value this version of Baton"
          + " knows (Compensate, Stop)");

      stack.applyWorkflow("after-enum", spec());
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.keySet().stream().anyMatch(k -> k.startsWith("after-enum@")));
    } finally {
      watcher.close();
    }
  }
}
