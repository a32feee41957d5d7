package dev.baton.devapi.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.api.crd.CommittedCrds;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What an API server keeps of a custom resource under a structural schema, and which unknown fields it drops. */
class StructuralPruningTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
    "a declared field stays           | {properties: {a: {type: integer}}}                                       | {a: 1}                | {a: 1}                | -",
    "an unknown field goes            | {properties: {a: {type: integer}}}                                       | {a: 1, b: 2}          | {a: 1}                | b",
    "unknown at every depth           | {properties: {o: {type: object, properties: {x: {type: string}}}}}       | {o: {x: s, y: {z: 1}}, w: 0} | {o: {x: s}}    | o.y;w",
    "an object of no properties       | {properties: {o: {type: object}}}                                        | {o: {k: v}}           | {o: {}}               | o.k",
    "list items are pruned            | {properties: {l: {type: array, items: {type: object, properties: {n: {type: string}}}}}} | {l: [{n: a, c: 1}, {n: b}]} | {l: [{n: a}, {n: b}]} | l[0].c",
    "a list of scalars stays          | {properties: {l: {type: array, items: {type: string}}}}                  | {l: [a, b]}           | {l: [a, b]}           | -",
    "map values stay (additionalProperties) | {properties: {m: {type: object, additionalProperties: {type: string}}}} | {m: {k1: a, k2: b}} | {m: {k1: a, k2: b}} | -",
    "map values are pruned inside     | {properties: {m: {type: object, additionalProperties: {type: object, properties: {v: {type: integer}}}}}} | {m: {k: {v: 1, x: 2}}} | {m: {k: {v: 1}}} | m.k.x",
    "preserve keeps anything          | {properties: {in: {x-kubernetes-preserve-unknown-fields: true}}}         | {in: {any: [1, {deep: true}]}} | {in: {any: [1, {deep: true}]}} | -",
    "preserve keeps a scalar too      | {properties: {in: {x-kubernetes-preserve-unknown-fields: true}}}         | {in: 42}              | {in: 42}              | -",
    "preserve still prunes the declared | {properties: {o: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {d: {type: object, properties: {k: {type: string}}}}}}} | {o: {free: 1, d: {k: a, u: 2}}} | {o: {free: 1, d: {k: a}}} | o.d.u",
    "null of a non-nullable field goes | {properties: {a: {type: string}, b: {type: string}}}                    | {a: null, b: x}       | {b: x}                | -",
    "null of a nullable field stays   | {properties: {a: {type: string, nullable: true}}}                        | {a: null}             | {a: null}             | -",
    "the resource's own fields stay   | {properties: {spec: {type: object, properties: {a: {type: integer}}}}}   | {apiVersion: g/v1, kind: K, metadata: {name: n, labels: {x: y}}, spec: {a: 1, b: 2}} | {apiVersion: g/v1, kind: K, metadata: {name: n, labels: {x: y}}, spec: {a: 1}} | spec.b",
    "metadata stays whole, though declared | {properties: {metadata: {type: object, properties: {name: {type: string, maxLength: 10}}}}} | {metadata: {name: n, uid: u}} | {metadata: {name: n, uid: u}} | -",
    "an embedded resource keeps its own | {properties: {e: {type: object, x-kubernetes-embedded-resource: true, properties: {spec: {type: object}}}}} | {e: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {}, extra: 1}} | {e: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {}}} | e.extra",
  })
  void prunesAsAnApiServerDoes(String what, String schema, String input, String expected, String unknown)
      throws Exception {
    StructuralPruning.Pruned pruned = StructuralPruning.prune(YAML.readTree(schema), YAML.readTree(input));

    assertThat(pruned.object()).isEqualTo(YAML.readTree(expected));
    assertThat(pruned.unknownFields()).containsExactlyElementsOf(
        unknown.equals("-") ? List.of() : Arrays.asList(unknown.split(";")));
  }

  @Test
  void aWorkerServiceOfTheCommittedCrdKeepsEveryDeclaredFieldAndLosesTheUnknownOnes() throws Exception {
    JsonNode schema = CommittedCrds.all().stream()
        .filter(crd -> crd.at("/spec/names/kind").asText().equals("WorkerService")).findFirst().orElseThrow()
        .at("/spec/versions/0/schema/openAPIV3Schema");
    JsonNode sent = YAML.readTree("""
        apiVersion: baton.dev/v1alpha1
        kind: WorkerService
        metadata: {name: payment, namespace: default}
        spec:
          service: payment
          unknownField: 1
          commands: [{name: pay, retryPolicy: quick, priority: high}]
          deployment:
            image: registry.example/payment:1
            podLabels: {team: payments}
            resources: {requests: {cpu: 100m}}
            env: [{name: A, valueFrom: {secretKeyRef: {name: s, key: k}}}]
        status: {somethingNew: 1}
        """);

    StructuralPruning.Pruned pruned = StructuralPruning.prune(schema, sent);

    assertThat(pruned.unknownFields()).containsExactly("spec.unknownField", "spec.commands[0].priority",
        "status.somethingNew");
    JsonNode expected = sent.deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) expected.get("spec")).remove("unknownField");
    ((com.fasterxml.jackson.databind.node.ObjectNode) expected.at("/spec/commands/0")).remove("priority");
    ((com.fasterxml.jackson.databind.node.ObjectNode) expected.get("status")).remove("somethingNew");
    assertThat(pruned.object()).isEqualTo(expected);
  }
}
