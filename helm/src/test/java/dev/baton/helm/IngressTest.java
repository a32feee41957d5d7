package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.networking.v1.HTTPIngressPath;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressRule;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The runtime's HTTP API and web UI behind an Ingress (runtime.ingress) or a Gateway API HTTPRoute (runtime.httpRoute):
 * both lead to the runtime's Service port; an HTTPRoute under a path prefix strips it, since the runtime serves from
 * its root.
 */
class IngressTest {

  private static final Map<String, Object> PARENT = Map.of("runtime.httpRoute.enabled", true,
      "runtime.httpRoute.parentRefs", List.of(Map.of("name", "public", "namespace", "gateways", "sectionName", "https")));

  @Test
  void neitherByDefaultNorWithoutTheRuntime() {
    assertThat(Chart.template(ValueSet.DEFAULTS).ofKind("Ingress")).isEmpty();
    assertThat(Chart.template(ValueSet.DEFAULTS).ofKind("HTTPRoute")).isEmpty();
    Rendered operatorOnly = Chart.template(ValueSet.OPERATOR_ONLY, Map.of("runtime.ingress.enabled", true,
        "runtime.httpRoute.enabled", true));
    assertThat(operatorOnly.ofKind("Ingress")).isEmpty();
    assertThat(operatorOnly.ofKind("HTTPRoute")).isEmpty();
  }

  @Test
  void anIngressLeadsEachHostToTheRuntimesService() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS, Map.of("runtime.ingress.enabled", true,
        "runtime.ingress.className", "nginx",
        "runtime.ingress.hosts", List.of("baton.example.com", "baton.internal"),
        "runtime.ingress.annotations", Map.of("cert-manager.io/cluster-issuer", "letsencrypt"),
        "runtime.ingress.tls", List.of(Map.of("hosts", List.of("baton.example.com"), "secretName", "baton-tls"))));
    Ingress ingress = chart.get(Ingress.class, "baton-runtime");

    assertThat(ingress.getSpec().getIngressClassName()).isEqualTo("nginx");
    assertThat(ingress.getMetadata().getAnnotations()).containsEntry("cert-manager.io/cluster-issuer", "letsencrypt");
    assertThat(ingress.getSpec().getTls()).singleElement().satisfies(tls -> {
      assertThat(tls.getSecretName()).isEqualTo("baton-tls");
      assertThat(tls.getHosts()).containsExactly("baton.example.com");
    });
    assertThat(ingress.getSpec().getRules()).extracting(IngressRule::getHost)
        .containsExactly("baton.example.com", "baton.internal");
    Service service = chart.get(Service.class, "baton-runtime");
    for (IngressRule rule : ingress.getSpec().getRules()) {
      assertThat(rule.getHttp().getPaths()).singleElement().satisfies(path -> {
        assertThat(path.getPath()).isEqualTo("/");
        assertThat(path.getPathType()).isEqualTo("Prefix");
        assertThat(path.getBackend().getService().getName()).isEqualTo(service.getMetadata().getName());
        assertThat(path.getBackend().getService().getPort().getName())
            .isEqualTo(service.getSpec().getPorts().get(0).getName());
      });
    }
  }

  /** The README's ingress-nginx example: a regular expression whose second group is the path the runtime sees. */
  @Test
  void anIngressWithoutHostsAndAControllersRewrite() {
    Ingress ingress = Chart.template(ValueSet.DEFAULTS, Map.of("runtime.ingress.enabled", true,
        "runtime.ingress.path", "/baton(/|$)(.*)", "runtime.ingress.pathType", "ImplementationSpecific",
        "runtime.ingress.annotations", Map.of("nginx.ingress.kubernetes.io/rewrite-target", "/$2",
            "nginx.ingress.kubernetes.io/use-regex", "true"))).get(Ingress.class, "baton-runtime");

    assertThat(ingress.getSpec().getIngressClassName()).as("the cluster's default class").isNull();
    assertThat(ingress.getSpec().getTls()).isNullOrEmpty();
    IngressRule rule = ingress.getSpec().getRules().get(0);
    assertThat(ingress.getSpec().getRules()).hasSize(1);
    assertThat(rule.getHost()).as("every host").isNull();
    assertThat(rule.getHttp().getPaths()).extracting(HTTPIngressPath::getPath, HTTPIngressPath::getPathType)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("/baton(/|$)(.*)", "ImplementationSpecific"));
  }

  @Test
  void anHttpRouteAtTheRootAttachesToItsGatewayWithoutRewriting() {
    JsonNode route = route(Chart.template(ValueSet.DEFAULTS, with(PARENT, "runtime.httpRoute.hostnames",
        List.of("baton.example.com"))));

    assertThat(route.path("apiVersion").asText()).isEqualTo("gateway.networking.k8s.io/v1");
    assertThat(route.at("/spec/parentRefs/0/name").asText()).isEqualTo("public");
    assertThat(route.at("/spec/parentRefs/0/sectionName").asText()).isEqualTo("https");
    assertThat(route.at("/spec/hostnames/0").asText()).isEqualTo("baton.example.com");
    JsonNode rule = onlyRule(route);
    assertThat(rule.at("/matches/0/path/type").asText()).isEqualTo("PathPrefix");
    assertThat(rule.at("/matches/0/path/value").asText()).isEqualTo("/");
    assertThat(rule.path("filters").isMissingNode() || rule.path("filters").isEmpty()).as("no rewrite at /").isTrue();
    assertThat(rule.at("/backendRefs/0/name").asText()).isEqualTo("baton-runtime");
    assertThat(rule.at("/backendRefs/0/port").asInt()).isEqualTo(8080);
  }

  @Test
  void anHttpRouteUnderAPrefixStripsIt() {
    JsonNode rule = onlyRule(route(Chart.template(ValueSet.DEFAULTS, with(PARENT, "runtime.httpRoute.path", "/baton"))));

    assertThat(rule.at("/matches/0/path/value").asText()).isEqualTo("/baton");
    assertThat(rule.path("filters")).hasSize(2);
    JsonNode rewrite = rule.at("/filters/0");
    assertThat(rewrite.path("type").asText()).isEqualTo("URLRewrite");
    assertThat(rewrite.at("/urlRewrite/path/type").asText()).isEqualTo("ReplacePrefixMatch");
    assertThat(rewrite.at("/urlRewrite/path/replacePrefixMatch").asText()).isEqualTo("/");
    JsonNode header = rule.at("/filters/1");
    assertThat(header.path("type").asText()).isEqualTo("RequestHeaderModifier");
    assertThat(header.at("/requestHeaderModifier/set/0/name").asText())
        .as("the prefix the web UI's cookies live under").isEqualTo("X-Forwarded-Prefix");
    assertThat(header.at("/requestHeaderModifier/set/0/value").asText()).isEqualTo("/baton");
  }

  @Test
  void anHttpRouteWithoutAGatewayIsRefused() {
    assertThatThrownBy(() -> Chart.template(ValueSet.DEFAULTS, Map.of("runtime.httpRoute.enabled", true)))
        .hasMessageContaining("runtime.httpRoute.parentRefs");
  }

  private static Map<String, Object> with(Map<String, Object> base, String key, Object value) {
    Map<String, Object> out = new java.util.HashMap<>(base);
    out.put(key, value);
    return out;
  }

  private static JsonNode route(Rendered chart) {
    List<JsonNode> routes = chart.trees("HTTPRoute");
    assertThat(routes).hasSize(1);
    assertThat(routes.get(0).at("/metadata/name").asText()).isEqualTo("baton-runtime");
    return routes.get(0);
  }

  private static JsonNode onlyRule(JsonNode route) {
    assertThat(route.at("/spec/rules")).hasSize(1);
    return route.at("/spec/rules/0");
  }
}
