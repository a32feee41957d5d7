package dev.baton.devapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.api.crd.CommittedCrds;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Admission of Baton resources as a real API server does it: structural schema, list-map keys and the CRDs' CEL rules
 * (transition rules against the stored object, on the defaulted object), with the API server's wording.
 */
class CelAdmissionTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private final SchemaAdmission admission = new SchemaAdmission();

  private static ResourceType type(String kind) {
    return CommittedCrds.CRD_FILES.stream().map(CommittedCrds::read)
        .filter(crd -> crd.at("/spec/names/kind").asText().equals(kind))
        .map(crd -> ResourceType.fromCrd(crd).get(0)).findFirst().orElseThrow();
  }

  private static JsonNode resource(String kind, String name, String spec) throws Exception {
    return YAML.readTree("{apiVersion: baton.dev/v1alpha1, kind: " + kind + ", metadata: {name: " + name + "}, spec: "
        + spec + "}");
  }

  private List<String> refusals(String kind, JsonNode object, JsonNode old) {
    return admission.check(type(kind), object, old, true).stream().map(c -> c.field() + ": " + c.message()).toList();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
    "duplicate step names     | Workflow      | x | {entity: order, steps: [{name: a, service: s, command: c}, {name: a, service: t, command: d}]} | spec.steps[1]: Duplicate value: map[string]interface {}{\"name\":\"a\"}",
    "duplicate command names  | WorkerService | x | {commands: [{name: pay}, {name: pay}]}                              | spec.commands[1]: Duplicate value: map[string]interface {}{\"name\":\"pay\"}",
    "subscription like a command | WorkerService | x | {commands: [{name: pay}], subscriptions: [{name: pay, service: o, pattern: '#'}]} | spec: Invalid value: \"object\": a subscription cannot have the name of a command",
    "reserved service name    | WorkerService | x | {service: dlx}                                                      | spec.service: Invalid value: \"string\": 'retry', 'dlx' and 'orchestrator' are reserved",
    "minReplicas above max    | WorkerService | x | {autoscaling: {minReplicas: 5, maxReplicas: 2}}                     | spec.autoscaling: Invalid value: \"object\": minReplicas must not exceed maxReplicas",
    "retries without delays   | RetryPolicy   | x | {maxAttempts: 3}                                                    | spec: Invalid value: \"object\": maxAttempts above 1 needs at least one delay",
    "long service name        | WorkerService | x | {service: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa} | spec.service: Too long: may not be more than 63 bytes",
    "long resource name       | WorkerService | aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | {commands: [{name: pay}]} | metadata.name: Too long: may not be more than 63 bytes",
    "pull policy              | WorkerService | x | {deployment: {image: i, imagePullPolicy: Sometimes}}                 | spec.deployment.imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\"",
    "env name                 | WorkerService | x | {deployment: {image: i, env: [{name: 'MY VAR'}]}}                    | spec.deployment.env[0].name: Invalid value: \"MY VAR\": spec.deployment.env[0].name in body should match",
    "quantity                 | WorkerService | x | {deployment: {image: i, resources: {limits: {memory: 1 GB}}}}        | spec.deployment.resources.limits.memory: Invalid value: \"1 GB\"",
    "missing entity           | Workflow      | x | {steps: [{name: a, service: s, command: c}]}                        | spec.entity: Required value",
  })
  void refusesWhatARealServerRefuses(String description, String kind, String name, String spec, String expected)
      throws Exception {
    assertThat(refusals(kind, resource(kind, name, spec), null)).as(description)
        .anySatisfy(r -> assertThat(r).startsWith(expected));
  }

  @Test
  void validResourcesPass() throws Exception {
    assertThat(refusals("WorkerService", resource("WorkerService", "payment",
        "{commands: [{name: pay}, {name: refund}], subscriptions: [{name: notify, service: order, pattern: '*.x.y'}],"
            + " autoscaling: {maxReplicas: 3}, queue: {type: quorum}}"), null)).isEmpty();
    assertThat(refusals("RetryPolicy", resource("RetryPolicy", "once", "{maxAttempts: 1}"), null)).isEmpty();
  }

  @Test
  void theQueueTypeCannotChangeOnUpdate() throws Exception {
    JsonNode classic = resource("WorkerService", "payment", "{commands: [{name: pay}]}");
    JsonNode quorum = resource("WorkerService", "payment", "{commands: [{name: pay}], queue: {type: quorum}}");
    JsonNode morePrefetch = resource("WorkerService", "payment", "{commands: [{name: pay}], queue: {prefetch: 50}}");

    assertThat(refusals("WorkerService", quorum, null)).as("a new resource may pick quorum").isEmpty();
    assertThat(refusals("WorkerService", morePrefetch, classic)).as("other queue settings may change").isEmpty();
    // the old object had no queue at all: defaulting makes it classic, as on a real server
    assertThat(refusals("WorkerService", quorum, classic)).singleElement().asString()
        .startsWith("spec.queue.type: Invalid value: \"string\": the queue type cannot change");
    assertThat(refusals("WorkerService", classic, quorum)).as("nor back, by leaving it out").hasSize(1);

    JsonNode workflow = resource("Workflow", "w", "{entity: order, steps: [{name: a, service: s, command: c}]}");
    JsonNode quorumWorkflow = resource("Workflow", "w",
        "{entity: order, queueType: quorum, steps: [{name: a, service: s, command: c}]}");
    assertThat(refusals("Workflow", quorumWorkflow, workflow)).singleElement().asString()
        .startsWith("spec.queueType: Invalid value: \"string\": the queue type cannot change");
  }
}
