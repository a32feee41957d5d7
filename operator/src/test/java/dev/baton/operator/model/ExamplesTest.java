package dev.baton.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.validation.Validated;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every file in {@code examples/} applied together ({@code kubectl apply -R -f examples/}): each resource is defined
 * in one file only, so applying one folder never redefines another's (the commented reference once redefined the
 * saga's {@code payment} without the commands order-approval uses and without the label that gives it a worker in
 * {@code baton dev}), every resource is valid, every Workflow's steps are served, and every Workflow and subscription
 * is granted with tenancy closed (the operator's default).
 */
class ExamplesTest {

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  @Test
  void everyExampleAppliedTogetherIsValidAndEveryWorkflowIsServed() throws IOException {
    Map<String, HasMetadata> applied = new LinkedHashMap<>();
    Map<String, Path> definedIn = new LinkedHashMap<>();
    for (Path file : exampleFiles()) {
      for (JsonNode doc : YAML.readValues(YAML.createParser(file.toFile()), JsonNode.class).readAll()) {
        HasMetadata r = switch (doc.path("kind").asText()) {
          case "RetryPolicy" -> YAML.treeToValue(doc, RetryPolicy.class);
          case "WorkerService" -> YAML.treeToValue(doc, WorkerService.class);
          case "Workflow" -> YAML.treeToValue(doc, Workflow.class);
          default -> throw new AssertionError(file + ": unexpected kind " + doc.path("kind"));
        };
        if (r.getMetadata().getNamespace() == null) {
          r.getMetadata().setNamespace("default");
        }
        String key = r.getKind() + "/" + r.getMetadata().getNamespace() + "/" + r.getMetadata().getName();
        Path first = definedIn.putIfAbsent(key, file);
        assertThat(first).as(key + " is defined in " + first + " and again in " + file).isNull();
        applied.put(key, r);
      }
    }
    List<RetryPolicy> policies = of(applied, RetryPolicy.class);
    List<WorkerService> services = of(applied, WorkerService.class);
    List<Workflow> workflows = of(applied, Workflow.class);
    assertThat(workflows).extracting(w -> w.getMetadata().getName())
        .contains("order-fulfilment", "order-approval");

    for (RetryPolicy p : policies) {
      assertValid(p, RetryPolicyTranslator.fromCrd(p));
    }
    NameClaims<WorkerService> claims = WorkerServiceTranslator.claims(services);
    for (WorkerService ws : services) {
      Validated<dev.baton.contract.topology.ServiceModel> model = WorkerServiceTranslator.fromCrd(ws,
          name -> policies.stream().filter(p -> p.getMetadata().getName().equals(name)).findFirst());
      assertValid(ws, model);
      // Tenancy is closed by default: every subscription must be granted as the examples stand.
      var subscriptions = SubscriptionGrants.of(ws.getMetadata().getNamespace(), claims, Tenancy.CLOSED)
          .decide(model.value());
      assertThat(subscriptions.all()).as(ws.getMetadata().getName() + ": " + subscriptions.message()).isTrue();
    }
    ServiceDirectory directory = ServiceDirectory.of(services);
    for (Workflow w : workflows) {
      assertValid(w, WorkflowTranslator.fromCrd(w, directory, WorkflowDirectory.of(workflows)));
      assertThat(CommandGrants.of(w.getMetadata().getNamespace(), directory, Tenancy.CLOSED)
          .refusal(WorkflowTranslator.referencedServices(w))).as(w.getMetadata().getName()).isEmpty();
    }
  }

  private static void assertValid(HasMetadata r, Validated<?> v) {
    assertThat(v.isValid()).as(r.getKind() + " " + r.getMetadata().getName() + ": " + v.problems()).isTrue();
  }

  private static <T extends HasMetadata> List<T> of(Map<String, HasMetadata> applied, Class<T> type) {
    return applied.values().stream().filter(type::isInstance).map(type::cast).toList();
  }

  private static List<Path> exampleFiles() throws IOException {
    String root = System.getProperty("baton.repo.root");
    Path examples = (root != null ? Path.of(root) : Path.of("").toAbsolutePath().getParent()).resolve("examples");
    try (Stream<Path> files = Files.walk(examples)) {
      return files.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).sorted().toList();
    }
  }
}
