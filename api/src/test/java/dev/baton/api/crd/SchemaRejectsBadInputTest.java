package dev.baton.api.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the CRD schema rejects statically, as a real API server would (CEL rules are checked by the operator). */
class SchemaRejectsBadInputTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final CrdSchemaValidator VALIDATOR = CrdSchemaValidator.fromClasspath();

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
    "duration without unit  | RetryPolicy   | {maxAttempts: 3, delays: ['30']}                                   | delays[0]",
    "fractional duration    | RetryPolicy   | {maxAttempts: 3, delays: ['1.5s']}                                 | delays[0]",
    "zero attempts          | RetryPolicy   | {maxAttempts: 0, delays: ['1s']}                                   | maxAttempts",
    "missing maxAttempts    | RetryPolicy   | {delays: ['1s']}                                                   | maxAttempts",
    "unknown field          | RetryPolicy   | {maxAttempts: 1, delay: ['1s']}                                    | delay",
    "service with a dot     | WorkerService | {service: pay.ment, commands: [{name: pay}]}                        | spec.service",
    "command with a dot     | WorkerService | {commands: [{name: pay.now}]}                                       | commands[0].name",
    "uppercase command      | WorkerService | {commands: [{name: Pay}]}                                           | commands[0].name",
    "command without name   | WorkerService | {commands: [{retryPolicy: standard}]}                               | name",
    "bad queue type         | WorkerService | {commands: [{name: pay}], queue: {type: stream}}                    | queue.type",
    "zero prefetch          | WorkerService | {commands: [{name: pay}], queue: {prefetch: 0}}                     | prefetch",
    "deployment sans image  | WorkerService | {commands: [{name: pay}], deployment: {replicas: 1}}                | image",
    "bad deletion policy    | WorkerService | {commands: [{name: pay}], deletionPolicy: Keep}                     | deletionPolicy",
    "subscription sans pattern | WorkerService | {subscriptions: [{name: n, service: payment}]}                   | pattern",
    "missing entity         | Workflow      | {steps: [{name: a, service: s, command: c}]}                        | entity",
    "no steps               | Workflow      | {entity: order, steps: []}                                          | steps",
    "bad timeout            | Workflow      | {entity: order, steps: [{name: a, service: s, command: c, timeout: 5 minutes}]} | timeout",
    "step with a dot        | Workflow      | {entity: order, steps: [{name: a.b, service: s, command: c}]}       | steps[0].name",
    "step without command   | Workflow      | {entity: order, steps: [{name: a, service: s}]}                     | command",
    "bad onFailure          | Workflow      | {entity: order, onFailure: Retry, steps: [{name: a, service: s, command: c}]} | onFailure",
  })
  void rejects(String description, String kind, String spec, String field) throws Exception {
    JsonNode resource = YAML.readTree(
        "{apiVersion: baton.dev/v1alpha1, kind: " + kind + ", metadata: {name: x}, spec: " + spec + "}");
    assertThat(VALIDATOR.validate(resource)).as(description).isNotEmpty().anySatisfy(e -> assertThat(e).contains(field));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
    "compound duration | RetryPolicy   | {maxAttempts: 3, delays: ['1m30s', '500ms']}",
    "minimal service   | WorkerService | {commands: [{name: pay}]}",
    "quorum            | WorkerService | {commands: [{name: pay}], queue: {type: quorum}}",
    "minimal workflow  | Workflow      | {entity: order, steps: [{name: a, service: s, command: c}]}",
  })
  void accepts(String description, String kind, String spec) throws Exception {
    JsonNode resource = YAML.readTree(
        "{apiVersion: baton.dev/v1alpha1, kind: " + kind + ", metadata: {name: x}, spec: " + spec + "}");
    assertThat(VALIDATOR.validate(resource)).as(description).isEmpty();
  }
}
