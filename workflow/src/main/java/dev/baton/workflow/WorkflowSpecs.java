package dev.baton.workflow;

import dev.baton.api.v1alpha1.BranchSpec;
import dev.baton.api.v1alpha1.CaseSpec;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
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
    }
  }
}
