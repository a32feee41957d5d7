package dev.baton.httpapi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.classmate.ResolvedType;
import com.github.victools.jsonschema.generator.CustomDefinition;
import com.github.victools.jsonschema.generator.CustomDefinitionProviderV2;
import com.github.victools.jsonschema.generator.FieldScope;
import com.github.victools.jsonschema.generator.Option;
import com.github.victools.jsonschema.generator.OptionPreset;
import com.github.victools.jsonschema.generator.SchemaBuilder;
import com.github.victools.jsonschema.generator.SchemaGenerationContext;
import com.github.victools.jsonschema.generator.SchemaGenerator;
import com.github.victools.jsonschema.generator.SchemaGeneratorConfigBuilder;
import com.github.victools.jsonschema.generator.SchemaVersion;
import com.github.victools.jsonschema.module.jackson.JacksonModule;
import com.github.victools.jsonschema.module.jackson.JacksonOption;
import dev.baton.api.json.Json;
import dev.baton.httpapi.ApiOperations.Access;
import dev.baton.httpapi.ApiOperations.Operation;
import dev.baton.httpapi.ApiOperations.Parameter;
import dev.baton.httpapi.ApiOperations.Response;
import dev.baton.httpapi.ApiOperations.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Build-time only: the OpenAPI 3.1 document of {@link ApiOperations}, whose schemas victools' generator derives from
 * the http-api types as Baton's mapper writes them (draft 2020-12, the dialect OpenAPI 3.1 uses; the Jackson module
 * honours {@code @JsonIgnore}, {@code @JsonProperty(required)} and records). The document is committed as a resource
 * ({@link ApiOperations#DOCUMENT}) and {@code OpenApiDocumentTest} fails when it differs from what this generates, so
 * the runtime serves a file and carries no generator.
 *
 * <p>What the types cannot say is said here from their own constants: a field is required when the mapper always
 * writes it (no {@code @JsonInclude} that leaves it out) and nullable when it is an object the mapper writes as
 * {@code null}; a request body takes no unknown field (its {@code parse} refuses one) and only the fields marked
 * {@code @JsonProperty(required = true)} are required in it; the bounds its {@code parse} checks.
 */
final class OpenApiGeneration {

  static final String BEARER = "bearer";
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  /** The request bodies: strict, as their {@code parse} methods are. */
  private static final Set<Class<?>> REQUESTS = Set.of(StartRequest.class, BatchStartRequest.class,
      CancelRequest.class, OperationRequest.class);

  private OpenApiGeneration() {}

  /** The document, ready to write. */
  static ObjectNode document() {
    SchemaBuilder schemas = schemaGenerator().buildMultipleSchemaDefinitions();
    ObjectNode doc = NODES.objectNode();
    doc.put("openapi", "3.1.0");
    ObjectNode info = doc.putObject("info");
    info.put("title", "Baton runtime HTTP API");
    info.put("version", "v1");
    info.put("description", "The orchestrator runtime's HTTP API: start, read, search, cancel, retry and signal"
        + " Workflow instances, bulk operations, and what the operator and probes read. Every error is an ErrorBody."
        + " With tokens configured (or in Kubernetes mode) calls need 'Authorization: Bearer <token>'; a runtime"
        + " started without tokens (baton dev) takes calls without one. Generated from the http-api module's types.");
    doc.putArray("security").addObject().putArray(BEARER);
    ObjectNode paths = doc.putObject("paths");
    for (Operation op : ApiOperations.ALL) {
      ObjectNode item = paths.has(op.path()) ? (ObjectNode) paths.get(op.path()) : paths.putObject(op.path());
      item.set(op.method().toLowerCase(Locale.ROOT), operation(op, schemas));
    }
    ObjectNode components = doc.putObject("components");
    ObjectNode bearer = components.putObject("securitySchemes").putObject(BEARER);
    bearer.put("type", "http");
    bearer.put("scheme", "bearer");
    bearer.put("description", "The runtime's token (BATON_API_TOKEN, or BATON_API_READ_TOKEN for GET only), or in"
        + " Kubernetes mode a Kubernetes token, checked with a TokenReview and RBAC.");
    components.set("schemas", sorted(schemas.collectDefinitions("components/schemas")));
    return doc;
  }

  private static ObjectNode operation(Operation op, SchemaBuilder schemas) {
    ObjectNode o = NODES.objectNode();
    o.put("operationId", op.id());
    o.put("summary", op.summary());
    switch (op.access()) {
      case OPEN -> o.putArray("security");
      case OPEN_UNLESS_READ_TOKEN -> {
        ArrayNode either = o.putArray("security");
        either.addObject();
        either.addObject().putArray(BEARER);
      }
      case TOKEN -> { } // the document's default
    }
    ArrayNode parameters = NODES.arrayNode();
    for (Parameter p : op.parameters()) {
      ObjectNode param = parameters.addObject();
      param.put("name", p.name());
      param.put("in", p.inPath() ? "path" : "query");
      param.put("description", p.description());
      param.put("required", p.inPath());
      param.set("schema", schema(p.value()));
    }
    if (op.idempotencyKey()) {
      ObjectNode key = parameters.addObject();
      key.put("name", "Idempotency-Key");
      key.put("in", "header");
      key.put("description", "Send the request again with the same key to get the first answer (status and body)"
          + " without acting twice; another body with the same key is a 422.");
      key.put("required", false);
      key.set("schema", schema(Value.length(1, 255)));
    }
    if (!parameters.isEmpty()) {
      o.set("parameters", parameters);
    }
    if (op.request() != null) {
      ObjectNode body = o.putObject("requestBody");
      body.put("required", op.requestRequired());
      body.putObject("content").putObject("application/json").set("schema", op.request() == Object.class
          ? NODES.objectNode().put("description", "Any JSON.") : schemas.createSchemaReference(op.request()));
    }
    ObjectNode responses = o.putObject("responses");
    for (Response r : op.responses()) {
      ObjectNode response = responses.putObject(Integer.toString(r.status()));
      response.put("description", r.description());
      ObjectNode media = response.putObject("content").putObject(r.mediaType());
      if (r.body() != null) {
        media.set("schema", schemas.createSchemaReference(r.body()));
      }
    }
    if (op.access() != Access.OPEN) {
      error(responses, schemas, 401, "No token, or one that is not valid (WWW-Authenticate says which).");
      error(responses, schemas, 403, "The token may not do this (a read-only token, or RBAC's answer).");
    }
    error(responses, schemas, "default", "An unexpected error.");
    return o;
  }

  private static void error(ObjectNode responses, SchemaBuilder schemas, Object status, String description) {
    ObjectNode response = responses.putObject(status.toString());
    response.put("description", description);
    response.putObject("content").putObject("application/json")
        .set("schema", schemas.createSchemaReference(ErrorBody.class));
  }

  private static ObjectNode schema(Value v) {
    ObjectNode s = NODES.objectNode();
    s.put("type", v.integer() ? "integer" : "string");
    if (v.format() != null) {
      s.put("format", v.format());
    }
    if (v.allowed() != null) {
      v.allowed().forEach(s.putArray("enum")::add);
    }
    putIf(s, "minLength", v.minLength());
    putIf(s, "maxLength", v.maxLength());
    putIf(s, "minimum", v.minimum());
    putIf(s, "maximum", v.maximum());
    putIf(s, "default", v.byDefault());
    return s;
  }

  private static void putIf(ObjectNode s, String name, Integer value) {
    if (value != null) {
      s.put(name, value);
    }
  }

  private static ObjectNode sorted(ObjectNode definitions) {
    ObjectNode out = NODES.objectNode();
    new TreeSet<>(iterable(definitions)).forEach(name -> out.set(name, definitions.get(name)));
    return out;
  }

  private static List<String> iterable(ObjectNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static SchemaGenerator schemaGenerator() {
    SchemaGeneratorConfigBuilder config = new SchemaGeneratorConfigBuilder(Json.MAPPER, SchemaVersion.DRAFT_2020_12,
        OptionPreset.PLAIN_JSON)
        .with(new JacksonModule(JacksonOption.RESPECT_JSONPROPERTY_REQUIRED))
        .with(Option.DEFINITIONS_FOR_ALL_OBJECTS, Option.EXTRA_OPEN_API_FORMAT_VALUES,
            Option.MAP_VALUES_AS_ADDITIONAL_PROPERTIES)
        .without(Option.SCHEMA_VERSION_INDICATOR);
    config.forTypesInGeneral().withCustomDefinitionProvider(new InPlaceTypes());
    // A nested type is named with the type it is in (BatchStartResponseResult, not Result): clients generated from
    // the document get class names that say what they are.
    config.forTypesInGeneral().withDefinitionNamingStrategy((key, context) -> {
      Class<?> type = key.getType().getErasedType();
      return type.getEnclosingClass() == null ? type.getSimpleName()
          : type.getEnclosingClass().getSimpleName() + type.getSimpleName();
    });
    config.forFields().withRequiredCheck(field -> !isRequest(field) && alwaysWritten(field));
    config.forFields().withNullableCheck(field -> !field.getType().isPrimitive() && (isRequest(field)
        ? !required(field) : alwaysWritten(field)));
    config.forTypesInGeneral().withAdditionalPropertiesResolver(scope ->
        REQUESTS.contains(scope.getType().getErasedType()) ? Void.class : null);
    // The bounds each request's parse checks, from its constants.
    config.forFields().withStringMinLengthResolver(field -> isRequest(field)
        && Set.of("businessKey", "signal").contains(field.getName()) ? 1 : null);
    config.forFields().withStringMaxLengthResolver(OpenApiGeneration::maxLength);
    config.forFields().withArrayMinItemsResolver(field -> field.getDeclaringType().getErasedType()
        == BatchStartRequest.class ? 1 : null);
    config.forFields().withArrayMaxItemsResolver(field -> field.getDeclaringType().getErasedType()
        == BatchStartRequest.class ? BatchStartRequest.MAX_INSTANCES : null);
    config.forFields().withEnumResolver(field -> field.getDeclaringType().getErasedType() == OperationRequest.class
        && field.getName().equals("action") ? new TreeSet<>(OperationRequest.ACTIONS) : null);
    // An operation's filter: the search's fields but its paging, at least one of them.
    config.forFields().withInstanceAttributeOverride((node, field, context) -> {
      if (field.getDeclaringType().getErasedType() == OperationRequest.class && field.getName().equals("filter")
          && !field.isFakeContainerItemScope()) {
        TreeSet<String> names = new TreeSet<>(InstanceQuery.PARAMETERS);
        names.removeAll(Set.of("limit", "cursor"));
        ArrayNode allowed = node.putObject("propertyNames").putArray("enum");
        names.forEach(allowed::add);
        node.put("minProperties", 1);
      }
    });
    return new SchemaGenerator(config.build());
  }

  /**
   * Types written in place rather than named: any JSON (an instance's input, a step's outputs), which the mapper
   * writes as it is, and a map (an operation's filter), no type of its own.
   */
  private static final class InPlaceTypes implements CustomDefinitionProviderV2 {
    @Override
    public CustomDefinition provideCustomSchemaDefinition(ResolvedType type, SchemaGenerationContext context) {
      if (type.isInstanceOf(Map.class)) {
        return new CustomDefinition(context.createStandardDefinition(type, this), CustomDefinition.INLINE_DEFINITION,
            CustomDefinition.INCLUDING_ATTRIBUTES);
      }
      if (!type.isInstanceOf(JsonNode.class)) {
        return null;
      }
      ObjectNode any = context.getGeneratorConfig().createObjectNode();
      if (type.isInstanceOf(ObjectNode.class)) {
        any.put("type", "object");
      }
      return new CustomDefinition(any, CustomDefinition.INLINE_DEFINITION, CustomDefinition.EXCLUDING_ATTRIBUTES);
    }
  }

  private static Integer maxLength(FieldScope field) {
    Class<?> type = field.getDeclaringType().getErasedType();
    if (type == StartRequest.class && field.getName().equals("businessKey")) {
      return StartRequest.MAX_BUSINESS_KEY;
    }
    if (type == OperationRequest.class && field.getName().equals("signal")) {
      return ApiPaths.MAX_SIGNAL_NAME;
    }
    return null;
  }

  private static boolean isRequest(FieldScope field) {
    return REQUESTS.contains(field.getDeclaringType().getErasedType());
  }

  private static boolean required(FieldScope field) {
    JsonProperty p = field.getAnnotationConsideringFieldAndGetter(JsonProperty.class);
    return p != null && p.required();
  }

  /** Whether Baton's mapper writes the field whatever its value (it writes nulls unless told otherwise). */
  private static boolean alwaysWritten(FieldScope field) {
    JsonInclude include = field.getAnnotationConsideringFieldAndGetter(JsonInclude.class);
    if (include == null) {
      include = field.getDeclaringType().getErasedType().getAnnotation(JsonInclude.class);
    }
    return include == null || include.value() == JsonInclude.Include.ALWAYS;
  }

  /** Writes the document as it is committed: indented, one trailing newline. */
  static String text(ObjectNode document) {
    try {
      return Json.PRETTY.writeValueAsString(document) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
