package dev.baton.workflow;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.api.v1alpha1.WorkflowSpec;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Workflow specs written as in a resource, for the tables. */
final class Specs {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private Specs() {}

  /** A spec of entity 'order' with these steps (a YAML flow sequence). */
  static WorkflowSpec steps(String steps) {
    return spec("{entity: order, steps: " + steps + "}");
  }

  static WorkflowSpec spec(String yaml) {
    try {
      return YAML.readValue(yaml, WorkflowSpec.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static WorkflowDefinition valid(WorkflowSpec spec) {
    var v = WorkflowParser.parse("shop", "orders", 1, spec);
    if (!v.isValid()) {
      throw new AssertionError("expected a valid spec: " + v.message());
    }
    return v.value();
  }
}
