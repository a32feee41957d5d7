package dev.baton.devapi.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the CRD schema rejects statically, as a real API server would, list-map duplicates and the Deployment fields users
 * set included (CEL rules are evaluated by the dev API, see dev-api's CelAdmissionTest).
 */
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
    "duplicate step names   | Workflow      | {entity: order, steps: [{name: a, service: s, command: c}, {name: a, service: t, command: d}]} | steps[1]: Duplicate value",
    "duplicate commands     | WorkerService | {commands: [{name: pay}, {name: pay, retryPolicy: quick}]}       | commands[1]: Duplicate value",
    "duplicate subscriptions | WorkerService | {subscriptions: [{name: n, service: a, pattern: x}, {name: n, service: b, pattern: y}]} | subscriptions[1]: Duplicate value",
    "51 commands            | WorkerService | {commands: [COMMANDS51]}                                          | spec.commands",
    "two kinds in one step  | Workflow      | {entity: order, steps: [{name: a, service: s, command: c, delay: 1s}]} | spec.steps[0]",
    "a step of no kind      | Workflow      | {entity: order, steps: [{name: a}]}                                 | spec.steps[0]",
    "duplicate in a branch  | Workflow      | {entity: order, steps: [{name: p, parallel: [{steps: [{name: a, delay: 1s}, {name: a, delay: 2s}]}, {steps: [{name: b, delay: 1s}]}]}]} | parallel[0].steps[1]: Duplicate value",
    "11 branches            | Workflow      | {entity: order, steps: [{name: p, parallel: [BRANCHES11]}]}           | spec.steps[0].parallel",
    "a fourth level         | Workflow      | {entity: order, steps: [{name: p, parallel: [{steps: [{name: q, parallel: [{steps: [{name: r, otherwise: []}]}]}]}]}]} | otherwise",
    "bad delay              | Workflow      | {entity: order, steps: [{name: a, delay: soon}]}                    | spec.steps[0].delay",
    "a case without when    | Workflow      | {entity: order, steps: [{name: c, choice: [{steps: []}]}]}          | when",
    "a wait without signal  | Workflow      | {entity: order, steps: [{name: w, wait: {timeout: 1h}}]}            | signal",
    "long timeout string    | Workflow      | {entity: order, steps: [{name: a, service: s, command: c, timeout: 1h1h1h1h1h1h1h1h1h}]} | timeout",
    "env name with a space  | WorkerService | {deployment: {image: i, env: [{name: 'MY VAR', value: x}]}}        | env[0].name",
    "env name from a digit  | WorkerService | {deployment: {image: i, env: [{name: 1VAR, value: x}]}}           | env[0].name",
    "env without a name     | WorkerService | {deployment: {image: i, env: [{value: x}]}}                        | name",
    "duplicate env names    | WorkerService | {deployment: {image: i, env: [{name: A, value: x}, {name: A, value: y}]}} | env[1]: Duplicate value",
    "pull policy Sometimes  | WorkerService | {deployment: {image: i, imagePullPolicy: Sometimes}}                | imagePullPolicy",
    "bad cpu quantity       | WorkerService | {deployment: {image: i, resources: {requests: {cpu: 'lots'}}}}      | requests.cpu",
    "bad memory quantity    | WorkerService | {deployment: {image: i, resources: {limits: {memory: '1 GB'}}}}     | limits.memory",
    "empty image            | WorkerService | {deployment: {image: ''}}                                          | image",
    "bad toleration effect  | WorkerService | {deployment: {image: i, tolerations: [{key: k, effect: Sometimes}]}} | tolerations[0].effect",
    "bad service account    | WorkerService | {deployment: {image: i, serviceAccountName: Workers}}               | serviceAccountName",
  })
  void rejects(String description, String kind, String spec, String field) throws Exception {
    String commands = java.util.stream.IntStream.range(0, 51).mapToObj(i -> "{name: c" + i + "}")
        .collect(java.util.stream.Collectors.joining(", "));
    String branches = java.util.stream.IntStream.range(0, 11).mapToObj(i -> "{steps: [{name: b" + i + ", delay: 1s}]}")
        .collect(java.util.stream.Collectors.joining(", "));
    JsonNode resource = YAML.readTree("{apiVersion: baton.dev/v1alpha1, kind: " + kind + ", metadata: {name: x}, spec: "
        + spec.replace("COMMANDS51", commands).replace("BRANCHES11", branches) + "}");
    assertThat(VALIDATOR.validate(resource)).as(description).isNotEmpty().anySatisfy(e -> assertThat(e).contains(field));
  }

  @org.junit.jupiter.api.Test
  void aWorkerServiceNameLongerThanALabelValueIsRefused() throws Exception {
    String name = "a".repeat(64);
    JsonNode resource = YAML.readTree("{apiVersion: baton.dev/v1alpha1, kind: WorkerService, metadata: {name: " + name
        + "}, spec: {commands: [{name: pay}]}}");
    assertThat(VALIDATOR.validate(resource)).anySatisfy(e -> assertThat(e).startsWith("metadata.name"));
    JsonNode fits = YAML.readTree("{apiVersion: baton.dev/v1alpha1, kind: WorkerService, metadata: {name: "
        + name.substring(1) + "}, spec: {commands: [{name: pay}]}}");
    assertThat(VALIDATOR.validate(fits)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
    "compound duration | RetryPolicy   | {maxAttempts: 3, delays: ['1m30s', '500ms']}",
    "minimal service   | WorkerService | {commands: [{name: pay}]}",
    "quorum            | WorkerService | {commands: [{name: pay}], queue: {type: quorum}}",
    "minimal workflow  | Workflow      | {entity: order, steps: [{name: a, service: s, command: c}]}",
    "deployment fields | WorkerService | {deployment: {image: 'registry.example.com/pay:1.0', imagePullPolicy: IfNotPresent, env: [{name: JAVA_OPTS, value: '-Xmx1g'}, {name: app.mode, valueFrom: {fieldRef: {fieldPath: metadata.name}}}], resources: {requests: {cpu: 100m, memory: 256Mi}, limits: {cpu: 2, memory: 1.5Gi}}}}",
    "pod template      | WorkerService | {deployment: {image: i, serviceAccountName: workers, podAnnotations: {a.io/b: c}, nodeSelector: {pool: workers}, tolerations: [{key: dedicated, operator: Equal, value: workers, effect: NoSchedule}], podSecurityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}, securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}}}",
  })
  void accepts(String description, String kind, String spec) throws Exception {
    JsonNode resource = YAML.readTree(
        "{apiVersion: baton.dev/v1alpha1, kind: " + kind + ", metadata: {name: x}, spec: " + spec + "}");
    assertThat(VALIDATOR.validate(resource)).as(description).isEmpty();
  }
}
