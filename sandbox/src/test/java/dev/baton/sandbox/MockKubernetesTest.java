package dev.baton.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The interceptor the chart's RBAC tests record requests with: it sees every request, may answer one itself, and what
 * it passes on reaches the CRUD store as before. The mock API server runs in-process: no cluster, broker or database.
 */
class MockKubernetesTest {

  @Test
  void theInterceptorSeesEveryRequestAnswersWhatItChoosesAndPassesTheRestToTheStore() {
    List<String> seen = new CopyOnWriteArrayList<>();
    MockKubernetes.Interceptor interceptor = (request, mock) -> {
      seen.add(request.getMethod() + " " + request.getPath());
      return request.getPath().equals("/answered-here")
          ? new MockResponse().setResponseCode(200).setBody("from the interceptor")
          : mock.dispatch(request);
    };
    try (MockKubernetes k = MockKubernetes.start(MockKubernetes.WORKFLOW_CRD, null, interceptor)) {
      assertThat(seen).as("the CRD's installation").anyMatch(r -> r.startsWith("POST /apis/apiextensions.k8s.io/"));

      k.client().configMaps().inNamespace("default").resource(new ConfigMapBuilder()
          .withNewMetadata().withName("kept").endMetadata().addToData("k", "v").build()).create();
      ConfigMap back = k.client().configMaps().inNamespace("default").withName("kept").get();

      assertThat(back.getData()).containsEntry("k", "v");
      assertThat(k.client().raw("/answered-here")).isEqualTo("from the interceptor");
      assertThat(seen).contains("POST /api/v1/namespaces/default/configmaps",
          "GET /api/v1/namespaces/default/configmaps/kept", "GET /answered-here");
    }
  }
}
