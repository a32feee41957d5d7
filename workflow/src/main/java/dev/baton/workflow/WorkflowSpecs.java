package dev.baton.workflow;

import dev.baton.api.v1alpha1.BranchSpec;
import dev.baton.api.v1alpha1.CaseSpec;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.topology.WorkflowModel;
import java.util.ArrayList;
import java.util.List;

/** Reading a Workflow spec as written, before (or without) translating it: for what must work on a bad spec too. */
public final class WorkflowSpecs {

  private WorkflowSpecs() {}

  /** Every step of the spec, nested ones included, in declaration order; none for a missing spec. */
  public static List<StepSpec> allSteps(WorkflowSpec spec) {
    List<StepSpec> all = new ArrayList<>();
    if (spec != null) {
      collect(spec.getSteps(), all);
    }
    return all;
  }

  /**
   * The tasks of the spec, nested ones included, as the orchestrator queue's bindings need them: service, action (the
   * command unless set) and compensation. From the spec as written, so that a stored revision keeps its routes even
   * if a later translator would refuse it.
   */
  public static List<WorkflowModel.Step> resultSources(WorkflowSpec spec) {
    return allSteps(spec).stream().filter(s -> s.getService() != null && s.getCommand() != null)
        .map(s -> new WorkflowModel.Step(s.getName(), s.getService(), s.effectiveAction(),
            s.getCompensate() == null || s.getCompensate().isBlank() ? null : s.getCompensate()))
        .toList();
  }

  private static void collect(List<StepSpec> steps, List<StepSpec> into) {
    if (steps == null) {
      return;
    }
    for (StepSpec s : steps) {
      if (s == null) {
        continue;
      }
      into.add(s);
      if (s.getParallel() != null) {
        for (BranchSpec b : s.getParallel()) {
          if (b != null) {
            collect(b.getSteps(), into);
          }
        }
      }
      if (s.getChoice() != null) {
        for (CaseSpec c : s.getChoice()) {
          if (c != null) {
            collect(c.getSteps(), into);
          }
        }
      }
      collect(s.getOtherwise(), into);
      if (s.getMap() != null) {
        collect(s.getMap().getSteps(), into);
      }
    }
  }
}
