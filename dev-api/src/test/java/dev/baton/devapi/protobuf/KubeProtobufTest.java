package dev.baton.devapi.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Bodies captured from kubectl 1.32's imperative commands, read as the JSON a client would have sent. */
class KubeProtobufTest {

  /** kubectl create serviceaccount ci -n team-a */
  private static final String SERVICE_ACCOUNT =
      "azhzAAoUCgJ2MRIOU2VydmljZUFjY291bnQSGgoYCgJjaRIAGgZ0ZWFtLWEiACoAMgA4AEIAGgAiAA==";
  /** kubectl create rolebinding ci-edit --clusterrole=edit --serviceaccount=team-a:ci -n team-a */
  private static final String ROLE_BINDING = "azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtSb2xlQmluZGluZxJvCh0KB2Np"
      + "LWVkaXQSABoGdGVhbS1hIgAqADIAOABCABIeCg5TZXJ2aWNlQWNjb3VudBIAGgJjaSIGdGVhbS1hGi4KGXJiYWMuYXV0aG9yaXphdGlvbi5r"
      + "OHMuaW8SC0NsdXN0ZXJSb2xlGgRlZGl0GgAiAA==";
  /** kubectl create clusterrolebinding ci-view --clusterrole=view --serviceaccount=team-a:ci --group=devs --user=alice */
  private static final String CLUSTER_ROLE_BINDING = "azhzAAoyChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEhJDbHVzdGVy"
      + "Um9sZUJpbmRpbmcSwQEKFwoHY2ktdmlldxIAGgAiACoAMgA4AEIAEioKBFVzZXISGXJiYWMuYXV0aG9yaXphdGlvbi5rOHMuaW8aBWFsaWNl"
      + "IgASKgoFR3JvdXASGXJiYWMuYXV0aG9yaXphdGlvbi5rOHMuaW8aBGRldnMiABIeCg5TZXJ2aWNlQWNjb3VudBIAGgJjaSIGdGVhbS1hGi4K"
      + "GXJiYWMuYXV0aG9yaXphdGlvbi5rOHMuaW8SC0NsdXN0ZXJSb2xlGgR2aWV3GgAiAA==";
  /** kubectl create role r1 --verb=get,list --resource=workflows.baton.dev,secrets --resource-name=a -n team-a */
  private static final String ROLE = "azhzAAokChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgRSb2xlElsKGAoCcjESABoGdGVhbS1h"
      + "IgAqADIAOABCABIZCgNnZXQKBGxpc3QSABoHc2VjcmV0cyIBYRIkCgNnZXQKBGxpc3QSCWJhdG9uLmRldhoJd29ya2Zsb3dzIgFhGgAiAA==";
  /** kubectl create clusterrole agg --aggregation-rule=rbac.authorization.k8s.io/aggregate-to-edit=true */
  private static final String AGGREGATING_CLUSTER_ROLE = "azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtDbHVz"
      + "dGVyUm9sZRJOChMKA2FnZxIAGgAiACoAMgA4AEIAGjcKNQozCityYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL2FnZ3JlZ2F0ZS10by1lZGl0"
      + "EgR0cnVlGgAiAA==";
  /** kubectl create token ci -n team-a --duration=2h --audience=baton --audience=x */
  private static final String TOKEN_REQUEST = "azhzAAooChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESDFRva2VuUmVxdWVzdBInChAK"
      + "ABIAGgAiACoAMgA4AEIAEg0KBWJhdG9uCgF4IKA4GgQKABIAGgAiAA==";
  /** kubectl create token ci -n team-a */
  private static final String PLAIN_TOKEN_REQUEST = "azhzAAooChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESDFRva2VuUmVxdWVzdBIa"
      + "ChAKABIAGgAiACoAMgA4AEIAEgAaBAoAEgAaACIA";
  /** kubectl auth can-i create workflows --subresource=instances --as=system:serviceaccount:team-a:ci -n team-a */
  private static final String SELF_SUBJECT_ACCESS_REVIEW = "azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1Ymp"
      + "lY3RBY2Nlc3NSZXZpZXcSVQoQCgASABoAIgAqADIAOABCABI3CjUKBnRlYW0tYRIGY3JlYXRlGgliYXRvbi5kZXYiACoJd29ya2Zsb3dzMglp"
      + "bnN0YW5jZXM6ABoICAASABoAIAAaACIA";
  /** kubectl auth can-i get /healthz */
  private static final String NON_RESOURCE_REVIEW = "azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RB"
      + "Y2Nlc3NSZXZpZXcSLwoQCgASABoAIgAqADIAOABCABIREg8KCC9oZWFsdGh6EgNnZXQaCAgAEgAaACAAGgAiAA==";

  @Test
  void aServiceAccountKeepsItsNameAndNamespaceAndDropsTheFieldsGoLeftEmpty() {
    assertThat(json(SERVICE_ACCOUNT)).isEqualTo(
        "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"ci\",\"namespace\":\"team-a\"}}");
  }

  @Test
  void bindingsCarryTheirSubjectsAndRoleRef() {
    assertThat(json(ROLE_BINDING)).isEqualTo("{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\","
        + "\"metadata\":{\"name\":\"ci-edit\",\"namespace\":\"team-a\"},"
        + "\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"ci\",\"namespace\":\"team-a\"}],"
        + "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"edit\"}}");
    JsonNode binding = decode(CLUSTER_ROLE_BINDING);
    assertThat(binding.path("kind").asText()).isEqualTo("ClusterRoleBinding");
    assertThat(binding.path("subjects").findValuesAsText("kind")).containsExactly("User", "Group", "ServiceAccount");
    assertThat(binding.path("subjects").findValuesAsText("name")).containsExactly("alice", "devs", "ci");
  }

  @Test
  void aRuleForTheCoreGroupKeepsItsEmptyGroupName() {
    JsonNode rules = decode(ROLE).path("rules");
    assertThat(Json.write(rules.get(0))).isEqualTo(
        "{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],\"resourceNames\":[\"a\"]}");
    assertThat(rules.get(1).path("apiGroups").get(0).asText()).isEqualTo("baton.dev");
  }

  @Test
  void anAggregationRuleKeepsItsLabelSelector() {
    assertThat(Json.write(decode(AGGREGATING_CLUSTER_ROLE).path("aggregationRule"))).isEqualTo(
        "{\"clusterRoleSelectors\":[{\"matchLabels\":{\"rbac.authorization.k8s.io/aggregate-to-edit\":\"true\"}}]}");
  }

  @Test
  void aTokenRequestCarriesItsAudiencesAndDurationOnlyWhenGiven() {
    JsonNode request = decode(TOKEN_REQUEST);
    assertThat(request.path("apiVersion").asText()).isEqualTo("authentication.k8s.io/v1");
    assertThat(Json.write(request.path("spec"))).isEqualTo("{\"audiences\":[\"baton\",\"x\"],\"expirationSeconds\":7200}");
    assertThat(decode(PLAIN_TOKEN_REQUEST).has("spec")).isFalse();
  }

  @Test
  void aSelfSubjectAccessReviewAsksAboutASubresourceOrAPath() {
    assertThat(Json.write(decode(SELF_SUBJECT_ACCESS_REVIEW).path("spec"))).isEqualTo("{\"resourceAttributes\":"
        + "{\"namespace\":\"team-a\",\"verb\":\"create\",\"group\":\"baton.dev\",\"resource\":\"workflows\","
        + "\"subresource\":\"instances\"}}");
    assertThat(Json.write(decode(NON_RESOURCE_REVIEW).path("spec")))
        .isEqualTo("{\"nonResourceAttributes\":{\"path\":\"/healthz\",\"verb\":\"get\"}}");
  }

  @Test
  void otherKindsAreNotReadAndGarbageIsRefused() {
    byte[] secret = bytes("azhzAAoMCgJ2MRIGU2VjcmV0EgIKAA==");
    assertThat(KubeProtobuf.toJson(secret)).isEmpty();
    assertThatThrownBy(() -> KubeProtobuf.toJson("{\"kind\":\"Secret\"}".getBytes()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("k8s\\0");
    byte[] truncated = java.util.Arrays.copyOf(bytes(ROLE_BINDING), 40);
    assertThatThrownBy(() -> KubeProtobuf.toJson(truncated)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("malformed protobuf");
  }

  private static String json(String base64) {
    return Json.write(decode(base64));
  }

  private static JsonNode decode(String base64) {
    return KubeProtobuf.toJson(bytes(base64)).orElseThrow();
  }

  private static byte[] bytes(String base64) {
    return Base64.getDecoder().decode(base64);
  }
}
