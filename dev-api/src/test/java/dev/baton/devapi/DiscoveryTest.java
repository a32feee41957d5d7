package dev.baton.devapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.crd.CommittedCrds;
import java.util.List;
import org.junit.jupiter.api.Test;

class DiscoveryTest {

  private final KnownResources resources = new KnownResources(() -> CommittedCrds.CRD_FILES.stream()
      .map(CommittedCrds::read).toList());
  private final Discovery discovery = new Discovery(resources);
  private final OpenApiV3 openApi = new OpenApiV3(resources);

  @Test
  void versionAndCoreGroup() {
    assertThat(discovery.document("/version").path("gitVersion").asText()).isEqualTo(Discovery.GIT_VERSION);
    JsonNode api = discovery.document("/api");
    assertThat(api.path("kind").asText()).isEqualTo("APIVersions");
    assertThat(api.path("versions").get(0).asText()).isEqualTo("v1");
  }

  @Test
  void groupsListTheBatonGroupWithItsPreferredVersion() {
    JsonNode groups = discovery.document("/apis");
    assertThat(groups.path("kind").asText()).isEqualTo("APIGroupList");
    assertThat(groups.findValuesAsText("name")).contains("apps", "apiextensions.k8s.io", "baton.dev");
    JsonNode baton = discovery.document("/apis/baton.dev");
    assertThat(baton.path("kind").asText()).isEqualTo("APIGroup");
    assertThat(baton.path("preferredVersion").path("groupVersion").asText()).isEqualTo("baton.dev/v1alpha1");
    assertThat(discovery.document("/apis/nowhere.example")).isNull();
  }

  @Test
  void resourceListsCarryKindsShortNamesAndSubresources() {
    JsonNode list = discovery.document("/apis/baton.dev/v1alpha1");
    assertThat(list.path("kind").asText()).isEqualTo("APIResourceList");
    assertThat(list.path("groupVersion").asText()).isEqualTo("baton.dev/v1alpha1");
    assertThat(list.findValuesAsText("name"))
        .contains("workflows", "workflows/status", "workerservices", "workerservices/status", "retrypolicies");
    JsonNode workflows = resource(list, "workflows");
    assertThat(workflows.path("kind").asText()).isEqualTo("Workflow");
    assertThat(workflows.path("namespaced").asBoolean()).isTrue();
    assertThat(workflows.path("shortNames").toString()).contains("bwf");
    assertThat(workflows.path("categories").toString()).contains("baton");
    assertThat(workflows.path("verbs").toString()).contains("watch", "patch");

    JsonNode core = discovery.document("/api/v1");
    assertThat(resource(core, "namespaces").path("namespaced").asBoolean()).isFalse();
    assertThat(resource(core, "secrets").path("kind").asText()).isEqualTo("Secret");
    assertThat(resource(discovery.document("/apis/apps/v1"), "deployments/scale").path("kind").asText())
        .isEqualTo("Scale");
  }

  @Test
  void rbacKindsServiceAccountTokensAndReviewsAreDiscoverable() {
    assertThat(discovery.document("/apis/rbac.authorization.k8s.io/v1").findValuesAsText("name"))
        .contains("roles", "rolebindings", "clusterroles", "clusterrolebindings");
    JsonNode token = resource(discovery.document("/api/v1"), "serviceaccounts/token");
    assertThat(token.path("kind").asText()).isEqualTo("TokenRequest");
    assertThat(token.path("group").asText()).isEqualTo("authentication.k8s.io");
    assertThat(token.path("verbs").toString()).isEqualTo("[\"create\"]");
    JsonNode review = resource(discovery.document("/apis/authorization.k8s.io/v1"), "subjectaccessreviews");
    assertThat(review.path("verbs").toString()).isEqualTo("[\"create\"]");
    assertThat(resource(discovery.document("/apis/authentication.k8s.io/v1"), "tokenreviews").path("namespaced")
        .asBoolean()).isFalse();
  }

  @Test
  void openApiV3DeclaresFieldValidationSoKubectlValidatesOnTheServer() {
    JsonNode index = openApi.document("/openapi/v3");
    assertThat(index.path("paths").path("apis/baton.dev/v1alpha1").path("serverRelativeURL").asText())
        .startsWith("/openapi/v3/apis/baton.dev/v1alpha1?hash=");
    assertThat(index.path("paths").has("api/v1")).isTrue();

    JsonNode doc = openApi.document("/openapi/v3/apis/baton.dev/v1alpha1?hash=x");
    JsonNode patch = doc.path("paths").path("/apis/baton.dev/v1alpha1/namespaces/{namespace}/workflows/{name}")
        .path("patch");
    assertThat(patch.path("x-kubernetes-group-version-kind").path("kind").asText()).isEqualTo("Workflow");
    assertThat(patch.path("parameters").findValuesAsText("name")).contains("fieldValidation");
    // no strategic merge patch for custom resources: kubectl sends a JSON merge patch
    assertThat(patch.path("requestBody").path("content").has("application/strategic-merge-patch+json")).isFalse();
    JsonNode schema = doc.path("components").path("schemas").path("dev.baton.v1alpha1.Workflow");
    assertThat(schema.path("properties").path("spec").path("properties").has("steps")).isTrue();
    assertThat(openApi.document("/openapi/v3/apis/nowhere.example/v1")).isNull();
  }

  private static JsonNode resource(JsonNode list, String name) {
    for (JsonNode r : list.path("resources")) {
      if (r.path("name").asText().equals(name)) {
        return r;
      }
    }
    throw new AssertionError(name + " not in " + List.of(list.findValuesAsText("name")));
  }
}
