package dev.baton.crdtools;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Walks a CRD's structural schema together with the model classes it was generated from, so that annotations on the
 * Java fields can refine the schema ({@link SchemaRefinement}) and tests can tell Baton's own fields from embedded
 * Kubernetes types. Any depth of nesting (steps inside parallel branches, say) is walked the same way.
 */
public final class ModelSchema {

  /** Kubernetes' own types (EnvVar, Toleration, SecurityContext, Condition, Quantity ...) as fabric8 models them. */
  private static final String KUBERNETES_MODEL = "io.fabric8.kubernetes.api.model";

  /**
   * One schema node: its path ({@code spec.steps[*].name}), the Java type it was generated from, the field declaring it
   * (null for the root and for list items and map values), and whether it lies inside an embedded Kubernetes type.
   */
  public record Node(String path, ObjectNode schema, Type type, Field field, boolean embedded) {

    public Class<?> rawType() {
      return raw(type);
    }

    /** Whether this node is the outermost node of an embedded Kubernetes type (a field of Baton's own classes). */
    public boolean embeddedRoot() {
      return embedded && field != null && !field.getDeclaringClass().getName().startsWith(KUBERNETES_MODEL);
    }
  }

  private ModelSchema() {}

  /** Visits every node of {@code root}, the {@code openAPIV3Schema} of {@code resource}'s CRD, parents first. */
  public static void walk(Class<? extends HasMetadata> resource, ObjectNode root, Consumer<Node> visitor) {
    visitor.accept(new Node("", root, resource, null, false));
    Type[] specAndStatus = customResourceArguments(resource);
    JsonNode properties = root.path("properties");
    if (specAndStatus != null) {
      walkField("spec", properties.path("spec"), specAndStatus[0], null, false, visitor);
      walkField("status", properties.path("status"), specAndStatus[1], null, false, visitor);
    }
  }

  private static void walkField(String path, JsonNode schema, Type type, Field field, boolean embedded,
      Consumer<Node> visitor) {
    if (!(schema instanceof ObjectNode node)) {
      return;
    }
    boolean inside = embedded || raw(type).getName().startsWith(KUBERNETES_MODEL);
    visitor.accept(new Node(path, node, type, field, inside));
    if (node.has("items")) {
      walkField(path + "[*]", node.get("items"), typeArgument(type, 0), null, inside, visitor);
    }
    if (node.path("additionalProperties").isObject()) {
      walkField(path + "[*]", node.get("additionalProperties"), typeArgument(type, 1), null, inside, visitor);
    }
    JsonNode properties = node.path("properties");
    if (properties.isObject()) {
      for (Class<?> c = raw(type); c != null && c != Object.class; c = c.getSuperclass()) {
        for (Field f : c.getDeclaredFields()) {
          if (Modifier.isStatic(f.getModifiers()) || f.isAnnotationPresent(JsonIgnore.class)) {
            continue;
          }
          String name = propertyName(f);
          if (properties.has(name)) {
            walkField(path.isEmpty() ? name : path + "." + name, properties.get(name), f.getGenericType(), f, inside,
                visitor);
          }
        }
      }
    }
  }

  private static String propertyName(Field f) {
    JsonProperty p = f.getAnnotation(JsonProperty.class);
    return p != null && !p.value().isEmpty() ? p.value() : f.getName();
  }

  private static Type[] customResourceArguments(Class<?> resource) {
    for (Type t = resource.getGenericSuperclass(); t != null; t = raw(t).getGenericSuperclass()) {
      if (t instanceof ParameterizedType p && p.getRawType() == CustomResource.class) {
        return p.getActualTypeArguments();
      }
      if (raw(t) == Object.class) {
        return null;
      }
    }
    return null;
  }

  /** The element type of a List (index 0) or the value type of a Map (index 1). */
  private static Type typeArgument(Type type, int mapIndex) {
    if (type instanceof ParameterizedType p) {
      Type[] args = p.getActualTypeArguments();
      if (List.class.isAssignableFrom(raw(p)) && args.length == 1) {
        return args[0];
      }
      if (Map.class.isAssignableFrom(raw(p)) && args.length == 2) {
        return args[mapIndex];
      }
    }
    return Object.class;
  }

  static Class<?> raw(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType p) {
      return raw(p.getRawType());
    }
    if (type instanceof java.lang.reflect.WildcardType w) {
      return raw(w.getUpperBounds()[0]);
    }
    return Object.class;
  }
}
