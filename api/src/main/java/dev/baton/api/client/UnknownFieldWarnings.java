package dev.baton.api.client;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Skips a field no model class declares and says so once per kind and field path ({@code WorkerService
 * spec.commands[*].priority}): never an error, since the resource is still read with every field this version knows.
 */
final class UnknownFieldWarnings extends DeserializationProblemHandler {

  private static final Logger LOG = LoggerFactory.getLogger(UnknownFieldWarnings.class);
  /** Enough for every field of a newer CRD; past it a resource full of made-up keys no longer grows the set. */
  static final int MAX_REMEMBERED = 1_000;

  /** A field skipped: the kind it was read as, its path from the resource, and where it was first seen. */
  record UnknownField(String kind, String path, String resource) {}

  private final Set<String> said = Collections.newSetFromMap(new ConcurrentHashMap<>());
  private final Consumer<UnknownField> sink;

  UnknownFieldWarnings(Consumer<UnknownField> sink) {
    this.sink = sink;
  }

  static UnknownFieldWarnings logged() {
    return new UnknownFieldWarnings(f -> LOG.warn("{} {}: field {} is unknown to this version of Baton and is ignored"
        + " (a newer CRD during an upgrade or a rollback, or a client wrote it); said once per kind and field",
        f.kind(), f.resource(), f.path()));
  }

  @Override
  public boolean handleUnknownProperty(DeserializationContext ctxt, JsonParser p, JsonDeserializer<?> deserializer,
      Object beanOrClass, String propertyName) throws IOException {
    UnknownField field = locate(p.getParsingContext(), propertyName, beanOrClass);
    if (said.size() < MAX_REMEMBERED && said.add(field.kind() + " " + field.path())) {
      sink.accept(field);
    }
    p.skipChildren();
    return true;
  }

  /**
   * The field's path from the resource that holds it: the parser stands on the field's value, inside the object that
   * holds it, or already inside the value when it is an object or a list. List items are {@code [*]}, so a field
   * unknown in every item is one field.
   */
  private static UnknownField locate(JsonStreamContext at, String propertyName, Object beanOrClass) {
    JsonStreamContext holder = at.inObject() && propertyName.equals(at.getCurrentName()) ? at : at.getParent();
    List<String> segments = new ArrayList<>(List.of(propertyName));
    Object outermost = beanOrClass;
    HasMetadata resource = null;
    for (JsonStreamContext c = holder; c != null; c = c.getParent()) {
      Object value = c.getCurrentValue();
      if (value != null) {
        outermost = value;
      }
      if (value instanceof HasMetadata r) {
        resource = r;
        break;
      }
      JsonStreamContext parent = c.getParent();
      if (parent == null || parent.inRoot()) {
        break;
      }
      segments.add(parent.inArray() ? "[*]" : parent.getCurrentName());
    }
    Collections.reverse(segments);
    StringBuilder path = new StringBuilder();
    for (String s : segments) {
      path.append(path.isEmpty() || s.equals("[*]") ? "" : ".").append(s);
    }
    String kind = resource != null && resource.getKind() != null ? resource.getKind()
        : (outermost instanceof Class<?> type ? type : outermost.getClass()).getSimpleName();
    return new UnknownField(kind, path.toString(), name(resource));
  }

  private static String name(HasMetadata resource) {
    ObjectMeta meta = resource == null ? null : resource.getMetadata();
    if (meta == null || meta.getName() == null) {
      return "(name not read yet)";
    }
    return meta.getNamespace() == null ? meta.getName() : meta.getNamespace() + "/" + meta.getName();
  }
}
