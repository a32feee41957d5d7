package dev.baton.devapi.protobuf;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * The Kubernetes protobuf encoding ({@code application/vnd.kubernetes.protobuf}) of the objects kubectl's
 * imperative commands send for identities and access: {@code kubectl create namespace|serviceaccount|role|
 * clusterrole|rolebinding|clusterrolebinding|token} and {@code kubectl auth can-i}. kubectl sends built-in kinds
 * only as protobuf, and the store speaks JSON: these become the JSON a client would have sent.
 *
 * <p>A body is {@code k8s\0} and a {@code runtime.Unknown}: the type (apiVersion, kind) and the object's own
 * message. Field numbers are those of the API's {@code generated.proto}; fields kubectl never sets on these
 * commands (owner references, managed fields, status) are skipped.
 */
public final class KubeProtobuf {

  public static final String CONTENT_TYPE = "application/vnd.kubernetes.protobuf";

  private static final byte[] MAGIC = {'k', '8', 's', 0};

  private static final MessageShape TYPE_META = new MessageShape().string(1, "apiVersion").string(2, "kind");

  private static final MessageShape OBJECT_META = new MessageShape()
      .string(1, "name").string(2, "generateName").string(3, "namespace").string(5, "uid")
      .string(6, "resourceVersion").int64(7, "generation").time(8, "creationTimestamp")
      .stringMap(11, "labels").stringMap(12, "annotations").strings(14, "finalizers");

  private static final MessageShape POLICY_RULE = new MessageShape()
      .strings(1, "verbs").strings(2, "apiGroups").strings(3, "resources").strings(4, "resourceNames")
      .strings(5, "nonResourceURLs");

  private static final MessageShape LABEL_SELECTOR = new MessageShape()
      .stringMap(1, "matchLabels")
      .messages(2, "matchExpressions", new MessageShape().string(1, "key").string(2, "operator").strings(3, "values"));

  private static final MessageShape SUBJECT = new MessageShape()
      .string(1, "kind").string(2, "apiGroup").string(3, "name").string(4, "namespace");

  private static final MessageShape ROLE_REF = new MessageShape().string(1, "apiGroup").string(2, "kind").string(3, "name");

  private static final MessageShape BINDING = new MessageShape()
      .message(1, "metadata", OBJECT_META).messages(2, "subjects", SUBJECT).message(3, "roleRef", ROLE_REF);

  private static final MessageShape RESOURCE_ATTRIBUTES = new MessageShape()
      .string(1, "namespace").string(2, "verb").string(3, "group").string(4, "version").string(5, "resource")
      .string(6, "subresource").string(7, "name");

  private static final Map<String, MessageShape> KINDS = Map.of(
      "v1/Namespace", new MessageShape().message(1, "metadata", OBJECT_META)
          .message(2, "spec", new MessageShape().strings(1, "finalizers")),
      "v1/ServiceAccount", new MessageShape().message(1, "metadata", OBJECT_META)
          .messages(2, "secrets", new MessageShape().string(1, "kind").string(2, "namespace").string(3, "name")
              .string(4, "uid").string(5, "apiVersion").string(6, "resourceVersion").string(7, "fieldPath"))
          .messages(3, "imagePullSecrets", new MessageShape().string(1, "name"))
          .optionalBool(4, "automountServiceAccountToken"),
      "rbac.authorization.k8s.io/v1/Role", new MessageShape().message(1, "metadata", OBJECT_META)
          .messages(2, "rules", POLICY_RULE),
      "rbac.authorization.k8s.io/v1/ClusterRole", new MessageShape().message(1, "metadata", OBJECT_META)
          .messages(2, "rules", POLICY_RULE)
          .message(3, "aggregationRule", new MessageShape().messages(1, "clusterRoleSelectors", LABEL_SELECTOR)),
      "rbac.authorization.k8s.io/v1/RoleBinding", BINDING,
      "rbac.authorization.k8s.io/v1/ClusterRoleBinding", BINDING,
      "authentication.k8s.io/v1/TokenRequest", new MessageShape().message(1, "metadata", OBJECT_META)
          .message(2, "spec", new MessageShape().strings(1, "audiences").optionalInt64(4, "expirationSeconds")
              .message(3, "boundObjectRef", new MessageShape().string(1, "kind").string(2, "apiVersion")
                  .string(3, "name").string(4, "uid"))),
      "authorization.k8s.io/v1/SelfSubjectAccessReview", new MessageShape().message(1, "metadata", OBJECT_META)
          .message(2, "spec", new MessageShape().message(1, "resourceAttributes", RESOURCE_ATTRIBUTES)
              .message(2, "nonResourceAttributes", new MessageShape().string(1, "path").string(2, "verb"))));

  private KubeProtobuf() {}

  public static boolean is(String contentType) {
    return contentType != null && contentType.startsWith(CONTENT_TYPE);
  }

  /**
   * The object as JSON, with its apiVersion and kind; empty when it is of a kind this does not read.
   *
   * @throws IllegalArgumentException when the body is not a Kubernetes protobuf message
   */
  public static Optional<ObjectNode> toJson(byte[] body) {
    if (body.length < MAGIC.length || body[0] != MAGIC[0] || body[1] != MAGIC[1] || body[2] != MAGIC[2]
        || body[3] != MAGIC[3]) {
      throw new IllegalArgumentException("not a Kubernetes protobuf message: it does not start with k8s\\0");
    }
    WireReader unknown = new WireReader(body, MAGIC.length, body.length - MAGIC.length);
    ObjectNode type = null;
    byte[] raw = new byte[0];
    String encoding = "";
    while (unknown.hasMore()) {
      long key = unknown.key();
      switch ((int) (key >>> 3)) {
        case 1 -> type = TYPE_META.decode(unknown.lengthDelimited());
        case 2 -> raw = unknown.lengthDelimited();
        case 3 -> encoding = new String(unknown.lengthDelimited(), StandardCharsets.UTF_8);
        default -> unknown.skip((int) (key & 7));
      }
    }
    if (type == null || !encoding.isEmpty()) {
      return Optional.empty();
    }
    String apiVersion = type.path("apiVersion").asText();
    String kind = type.path("kind").asText();
    MessageShape shape = KINDS.get(apiVersion + "/" + kind);
    if (shape == null) {
      return Optional.empty();
    }
    ObjectNode json = type.objectNode().put("apiVersion", apiVersion).put("kind", kind);
    json.setAll(shape.decode(raw));
    return Optional.of(json);
  }
}
