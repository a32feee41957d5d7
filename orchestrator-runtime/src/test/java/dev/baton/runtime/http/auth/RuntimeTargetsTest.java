package dev.baton.runtime.http.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.api.v1alpha1.WorkerServiceStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Whose dead letters a service's are: the WorkerService that holds its name. */
class RuntimeTargetsTest {

  static WorkerService service(String namespace, String name, String service, String claimed) {
    WorkerService w = new WorkerService();
    w.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
    WorkerServiceSpec spec = new WorkerServiceSpec();
    spec.setService(service);
    w.setSpec(spec);
    if (claimed != null) {
      WorkerServiceStatus status = new WorkerServiceStatus();
      status.setService(claimed);
      w.setStatus(status);
    }
    return w;
  }

  @Test
  void theOneWorkerServiceThatAsksForTheNameOwnsIt() {
    assertThat(RuntimeTargets.ownerAmong(List.of(service("shop", "payment-workers", "payment", null),
        service("shop", "shipping", null, null)), "payment"))
        .hasValue(new Targets.Target("shop", "payment-workers"));
    assertThat(RuntimeTargets.ownerAmong(List.of(service("shop", "shipping", null, null)), "shipping"))
        .as("the name defaults to the resource's").hasValue(new Targets.Target("shop", "shipping"));
  }

  @Test
  void whenTwoAskTheOneThatHoldsTheClaimOwnsItAndWithoutAClaimNobodyDoes() {
    WorkerService holder = service("team-a", "payment", "payment", "payment");
    WorkerService latecomer = service("team-b", "payment", "payment", null);

    assertThat(RuntimeTargets.ownerAmong(List.of(latecomer, holder), "payment"))
        .hasValue(new Targets.Target("team-a", "payment"));
    assertThat(RuntimeTargets.ownerAmong(List.of(latecomer, service("team-c", "payment", "payment", null)),
        "payment")).isEqualTo(Optional.empty());
    assertThat(RuntimeTargets.ownerAmong(List.of(), "payment")).isEmpty();
  }
}
