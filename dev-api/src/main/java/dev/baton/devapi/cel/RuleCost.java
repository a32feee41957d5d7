package dev.baton.devapi.cel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The worst-case cost of a CEL validation rule as a Kubernetes API server estimates it before it accepts a CRD: the
 * static cost model of cel-go's checker ({@code checker/cost.go}: {@code coster}, {@code functionCost},
 * {@code costComprehension}) with the sizes apiextensions-apiserver derives from the schema
 * ({@code pkg/apiserver/schema/cel/compilation.go}: {@code sizeEstimator}; k8s.io/apiserver {@code pkg/cel/common/schemas.go}:
 * {@code SchemaDeclType}, where a string with a maxLength has 4 bytes per character, an enum its longest value, an
 * unbounded string the whole request). Kubernetes sets {@code PresenceTestHasCost(false)}: {@code has()} is free.
 *
 * <p>The API server multiplies this cost by the rule's cardinality ({@link SchemaRule#cardinality()}) and refuses a
 * CRD when one product exceeds {@code StaticEstimatedCostLimit} (10,000,000) or their sum
 * {@code StaticEstimatedCRDCostLimit} (100,000,000) (apiextensions {@code pkg/apis/apiextensions/validation}); a rule's
 * evaluation is also cut off at run time at {@code PerCallLimit} (1,000,000, k8s.io/apiserver
 * {@code pkg/apis/cel/config.go}).
 *
 * <p>Functions of the Kubernetes CEL libraries (lists, regex, urls, quantity ...) have their own estimators upstream;
 * this model refuses them rather than guess ({@link UnsupportedOperationException}).
 */
public final class RuleCost {

  public static final long STATIC_ESTIMATED_COST_LIMIT = 10_000_000L;
  public static final long STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000L;
  public static final long PER_CALL_LIMIT = 1_000_000L;

  /** cel-go {@code common/cost.go}. */
  private static final double STRING_TRAVERSAL_COST_FACTOR = 0.1;
  private static final double REGEX_STRING_LENGTH_COST_FACTOR = 0.25;
  private static final long LIST_CREATE_BASE_COST = 10;
  private static final long MAP_CREATE_BASE_COST = 30;
  private static final long STRUCT_CREATE_BASE_COST = 40;

  private static final Set<String> KUBERNETES_LIBRARY = Set.of("isSorted", "sum", "max", "min", "indexOf",
      "lastIndexOf", "url", "lowerAscii", "upperAscii", "substring", "trim", "replace", "split", "join", "find",
      "findAll", "quantity", "isQuantity", "ip", "cidr", "isIP", "isCIDR", "semver", "isSemver", "format.named",
      "validate", "authorizer");
  private static final Set<String> ACCUMULATORS = Set.of("__result__", "@result", "@__result__");

  /** A min..max range of cost units or of sizes; sums and products saturate at Long.MAX_VALUE. */
  record Range(long min, long max) {
    static final Range ZERO = new Range(0, 0);
    static final Range UNKNOWN = new Range(0, Long.MAX_VALUE);

    static Range of(long v) {
      return new Range(v, v);
    }

    Range plus(Range o) {
      return new Range(add(min, o.min), add(max, o.max));
    }

    Range times(Range o) {
      return new Range(SchemaRule.times(min, o.min), SchemaRule.times(max, o.max));
    }

    Range factor(double f) {
      return new Range(ceil(min, f), ceil(max, f));
    }

    Range union(Range o) {
      return new Range(Math.min(min, o.min), Math.max(max, o.max));
    }

    private static long add(long a, long b) {
      return a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
    }

    private static long ceil(long x, double f) {
      double v = Math.ceil(x * f);
      return v >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) v;
    }
  }

  /** What is known of an expression: its path from self (for schema sizes) and its schema node, when it has one. */
  private record Local(List<String> path, Range size, Range entrySize) {}

  private final JsonNode selfSchema;
  private final boolean atRoot;
  private final Map<Long, List<String>> paths = new HashMap<>();
  private final Map<Long, Range> sizes = new HashMap<>();
  private final Map<Long, Range> entrySizes = new HashMap<>();
  private final Map<String, Deque<Local>> locals = new HashMap<>();

  private RuleCost(JsonNode selfSchema, boolean atRoot) {
    this.selfSchema = selfSchema;
    this.atRoot = atRoot;
  }

  /** The estimated maximum cost of one evaluation of the parsed rule, {@code self} having {@code selfSchema}. */
  public static long estimate(CelAbstractSyntaxTree ast, JsonNode selfSchema, boolean atRoot) {
    return new RuleCost(selfSchema, atRoot).cost(ast.getExpr()).max();
  }

  private Range cost(CelExpr e) {
    return switch (e.getKind()) {
      case CONSTANT -> Range.ZERO;
      case IDENT -> ident(e);
      case SELECT -> select(e);
      case CALL -> call(e);
      case LIST -> list(e);
      case MAP -> map(e);
      case STRUCT -> {
        Range sum = Range.of(STRUCT_CREATE_BASE_COST);
        for (CelExpr.CelStruct.Entry entry : e.struct().entries()) {
          sum = sum.plus(cost(entry.value()));
        }
        yield sum;
      }
      case COMPREHENSION -> comprehension(e);
      default -> Range.ZERO;
    };
  }

  private Range ident(CelExpr e) {
    String name = e.ident().name();
    Local local = peek(name);
    paths.put(e.id(), local != null ? local.path() : List.of(name));
    return Range.of(1);
  }

  private Range select(CelExpr e) {
    CelExpr.CelSelect select = e.select();
    Range operand = cost(select.operand());
    List<String> path = new ArrayList<>(path(select.operand()));
    path.add(select.field());
    paths.put(e.id(), path);
    // has(): free in Kubernetes (PresenceTestHasCost(false)); a field select on an object or map costs 1.
    return select.testOnly() ? operand : operand.plus(Range.of(1));
  }

  private Range list(CelExpr e) {
    Range sum = Range.of(LIST_CREATE_BASE_COST);
    Range items = e.list().elements().isEmpty() ? Range.ZERO : new Range(Long.MAX_VALUE, 0);
    for (CelExpr element : e.list().elements()) {
      sum = sum.plus(cost(element));
      items = items.union(sizeOrUnknown(element));
    }
    entrySizes.put(e.id(), items);
    return sum;
  }

  private Range map(CelExpr e) {
    Range sum = Range.of(MAP_CREATE_BASE_COST);
    for (CelExpr.CelMap.Entry entry : e.map().entries()) {
      sum = sum.plus(cost(entry.key())).plus(cost(entry.value()));
    }
    return sum;
  }

  private Range comprehension(CelExpr e) {
    CelExpr.CelComprehension c = e.comprehension();
    Range sum = cost(c.iterRange()).plus(cost(c.accuInit()));
    push(c.accuVar(), new Local(path(c.accuInit()), computeSize(c.accuInit()), null));
    List<String> itemPath = new ArrayList<>(path(c.iterRange()));
    itemPath.add(isMap(c.iterRange()) ? "@keys" : "@items");
    push(c.iterVar(), new Local(itemPath, entrySizes.get(c.iterRange().id()), null));
    Range loop = cost(c.loopCondition());
    Range step = cost(c.loopStep());
    pop(c.iterVar());
    sum = sum.plus(cost(c.result()));
    pop(c.accuVar());
    Range range = sizeOrUnknown(c.iterRange());
    if (c.accuInit().getKind() == CelExpr.ExprKind.Kind.LIST || c.accuInit().getKind() == CelExpr.ExprKind.Kind.MAP) {
      sizes.put(e.id(), range);
    }
    return sum.plus(range.times(step.plus(loop)));
  }

  private Range call(CelExpr e) {
    CelExpr.CelCall call = e.call();
    String fn = call.function();
    if (KUBERNETES_LIBRARY.contains(fn)) {
      throw new UnsupportedOperationException("no cost model here for the Kubernetes CEL library function " + fn);
    }
    List<CelExpr> args = call.args();
    List<Range> argCosts = new ArrayList<>();
    for (CelExpr arg : args) {
      argCosts.add(cost(arg));
    }
    Range sum = Range.ZERO;
    Optional<CelExpr> target = call.target();
    if (target.isPresent()) {
      sum = sum.plus(cost(target.get()));
    }
    Range argSum = Range.ZERO;
    for (Range r : argCosts) {
      argSum = argSum.plus(r);
    }
    Range fnCost;
    switch (fn) {
      case "_&&_", "_||_" -> fnCost = new Range(argCosts.get(0).min(), argCosts.get(0).plus(argCosts.get(1)).max());
      case "_?_:_" -> {
        sizes.put(e.id(), sizeOrUnknown(args.get(1)).union(sizeOrUnknown(args.get(2))));
        fnCost = argCosts.get(0).plus(argCosts.get(1).union(argCosts.get(2)));
      }
      case "@in" -> fnCost = sizeOrUnknown(args.get(1)).plus(argSum);
      case "startsWith", "endsWith" -> fnCost = sizeOrUnknown(args.get(0)).factor(STRING_TRAVERSAL_COST_FACTOR).plus(argSum);
      case "contains" -> fnCost = sizeOrUnknown(target.orElseThrow()).factor(STRING_TRAVERSAL_COST_FACTOR)
          .times(sizeOrUnknown(args.get(0)).factor(STRING_TRAVERSAL_COST_FACTOR)).plus(argSum);
      case "matches" -> {
        CelExpr text = target.orElse(args.get(0));
        CelExpr regex = target.isPresent() ? args.get(0) : args.get(1);
        fnCost = sizeOrUnknown(text).plus(Range.of(1)).factor(STRING_TRAVERSAL_COST_FACTOR)
            .times(sizeOrUnknown(regex).factor(REGEX_STRING_LENGTH_COST_FACTOR)).plus(argSum);
      }
      case "_+_" -> {
        Range result = sizeOrUnknown(args.get(0)).plus(sizeOrUnknown(args.get(1)));
        Kind kind = kind(args.get(0));
        if (kind == Kind.STRING || kind == Kind.BYTES) {
          sizes.put(e.id(), result);
          fnCost = result.factor(STRING_TRAVERSAL_COST_FACTOR).plus(argSum);
        } else if (kind == Kind.LIST) {
          sizes.put(e.id(), result);
          fnCost = Range.of(1).plus(argSum);
        } else {
          fnCost = Range.of(1).plus(argSum);
        }
      }
      case "_==_", "_!=_" -> fnCost = comparison(args).plus(argSum);
      case "_<_", "_<=_", "_>_", "_>=_" -> {
        Kind kind = kind(args.get(0));
        fnCost = (kind == Kind.STRING || kind == Kind.BYTES ? comparison(args) : Range.of(1)).plus(argSum);
      }
      case "_[_]" -> {
        List<String> p = new ArrayList<>(path(args.get(0)));
        p.add(isMap(args.get(0)) ? "@values" : "@items");
        paths.put(e.id(), p);
        fnCost = Range.of(1).plus(argSum);
      }
      default -> fnCost = Range.of(1).plus(argSum);   // O(1): size, !_, @not_strictly_false, int arithmetic ...
    }
    return sum.plus(fnCost);
  }

  /** Equality and string ordering: a tenth of the smaller maximum size, at least 1 when anything is compared. */
  private Range comparison(List<CelExpr> args) {
    long smallestMax = Math.min(sizeOrUnknown(args.get(0)).max(), sizeOrUnknown(args.get(1)).max());
    return new Range(smallestMax > 0 ? 1 : 0, smallestMax).factor(STRING_TRAVERSAL_COST_FACTOR);
  }

  // ---- sizes ---------------------------------------------------------------------------------------------------

  private Range sizeOrUnknown(CelExpr e) {
    Range size = computeSize(e);
    return size == null ? Range.UNKNOWN : size;
  }

  /** cel-go's {@code computeSize}: computed sizes, then literal sizes, then the schema, then scalar types. */
  private Range computeSize(CelExpr e) {
    if (sizes.containsKey(e.id())) {
      return sizes.get(e.id());
    }
    switch (e.getKind()) {
      case CONSTANT -> {
        CelConstant c = e.constant();
        return switch (c.getKind()) {
          case STRING_VALUE -> Range.of(c.stringValue().codePointCount(0, c.stringValue().length()));
          case BYTES_VALUE -> Range.of(c.bytesValue().size());
          default -> Range.of(1);
        };
      }
      case LIST -> {
        return Range.of(e.list().elements().size());
      }
      case MAP -> {
        return Range.of(e.map().entries().size());
      }
      default -> {
      }
    }
    List<String> path = path(e);
    if (!path.isEmpty() && !ACCUMULATORS.contains(path.get(0))) {
      JsonNode node = schemaAt(path);
      if (node != null) {
        return Range.of(maxElements(node));
      }
    }
    Kind kind = kind(e);
    if (kind == Kind.BOOL || kind == Kind.INT || kind == Kind.DOUBLE) {
      return Range.of(1);
    }
    if (e.getKind() == CelExpr.ExprKind.Kind.IDENT) {
      Local local = peek(e.ident().name());
      if (local != null && local.size() != null) {
        return local.size();
      }
    }
    return null;
  }

  /** The schema node at a path from self ({@code self}, a field, {@code @items}, {@code @values}), or null. */
  private JsonNode schemaAt(List<String> path) {
    JsonNode node = selfSchema;
    for (String step : path.subList(1, path.size())) {
      if (node == null) {
        return null;
      }
      switch (step) {
        case "@items" -> node = node.has("items") ? node.get("items") : null;
        case "@values" -> node = node.path("additionalProperties").isObject() ? node.get("additionalProperties") : null;
        case "@keys" -> node = KEY_SCHEMA;
        default -> {
          JsonNode field = atRoot && node == selfSchema && ROOT_FIELDS.contains(step)
              ? rootField(step) : node.path("properties").path(step);
          node = field.isMissingNode() ? null : field;
        }
      }
    }
    return node;
  }

  /** Map keys are the shared string DeclType upstream, whose MaxElements is never set: size 0. */
  private static final JsonNode KEY_SCHEMA = object().put("type", "string").put("maxLength", 0);
  private static final Set<String> ROOT_FIELDS = Set.of("apiVersion", "kind", "metadata");

  /**
   * At a resource's root, apiVersion, kind and metadata.name/generateName exist whatever the schema says, as unbounded
   * strings: recent API servers bound metadata.name by the schema's maxLength (at most 253), but Kubernetes 1.27, the
   * oldest Baton supports, costs it as the whole request. This model takes the older, higher cost.
   */
  private static JsonNode rootField(String name) {
    return switch (name) {
      case "apiVersion", "kind" -> object().put("type", "string");
      case "metadata" -> {
        ObjectNode metadata = object().put("type", "object");
        metadata.putObject("properties").set("name", object().put("type", "string"));
        ((ObjectNode) metadata.get("properties")).set("generateName", object().put("type", "string"));
        yield metadata;
      }
      default -> MissingNode.getInstance();
    };
  }

  /** {@code DeclType.MaxElements} of a schema node (SchemaDeclType in k8s.io/apiserver pkg/cel/common/schemas.go). */
  static long maxElements(JsonNode s) {
    String type = s.path("type").asText();
    if (s.path("x-kubernetes-int-or-string").asBoolean()) {
      return s.has("maxLength") ? s.get("maxLength").asLong() * 4 : SchemaRule.MAX_REQUEST_BYTES - 2;
    }
    switch (type) {
      case "string" -> {
        if (s.has("maxLength")) {
          return s.get("maxLength").asLong() * 4;
        }
        if (s.has("enum")) {
          long longest = 0;
          for (JsonNode v : s.get("enum")) {
            longest = Math.max(longest, v.asText().length());
          }
          return longest;
        }
        return SchemaRule.MAX_REQUEST_BYTES - 2;
      }
      case "array" -> {
        return s.has("maxItems") ? s.get("maxItems").asLong() : (SchemaRule.MAX_REQUEST_BYTES - 2) / 3;
      }
      case "object" -> {
        if (s.path("additionalProperties").isObject()) {
          return s.has("maxProperties") ? s.get("maxProperties").asLong() : (SchemaRule.MAX_REQUEST_BYTES - 2) / 8;
        }
        return 0;
      }
      default -> {
        return 0;
      }
    }
  }

  // ---- types and paths -----------------------------------------------------------------------------------------

  private enum Kind { BOOL, INT, DOUBLE, STRING, BYTES, LIST, MAP, OBJECT, DYN }

  private Kind kind(CelExpr e) {
    switch (e.getKind()) {
      case CONSTANT -> {
        return switch (e.constant().getKind()) {
          case BOOLEAN_VALUE -> Kind.BOOL;
          case INT64_VALUE, UINT64_VALUE -> Kind.INT;
          case DOUBLE_VALUE -> Kind.DOUBLE;
          case STRING_VALUE -> Kind.STRING;
          case BYTES_VALUE -> Kind.BYTES;
          default -> Kind.DYN;
        };
      }
      case LIST -> {
        return Kind.LIST;
      }
      case MAP -> {
        return Kind.MAP;
      }
      case CALL -> {
        if (e.call().function().equals("_[_]")) {
          break;   // typed by the schema at its path, below
        }
        return switch (e.call().function()) {
          case "size", "_-_", "_*_", "_/_", "_%_", "-_", "int" -> Kind.INT;
          case "string" -> Kind.STRING;
          case "_+_" -> kind(e.call().args().get(0));
          case "_?_:_" -> kind(e.call().args().get(1));
          default -> Kind.BOOL;
        };
      }
      case COMPREHENSION -> {
        return kind(e.comprehension().result());
      }
      default -> {
      }
    }
    List<String> path = path(e);
    if (!path.isEmpty() && !ACCUMULATORS.contains(path.get(0))) {
      JsonNode node = schemaAt(path);
      if (node != null) {
        return switch (node.path("type").asText()) {
          case "boolean" -> Kind.BOOL;
          case "integer" -> Kind.INT;
          case "number" -> Kind.DOUBLE;
          case "string" -> node.path("format").asText().equals("byte") ? Kind.BYTES : Kind.STRING;
          case "array" -> Kind.LIST;
          case "object" -> node.path("additionalProperties").isObject() ? Kind.MAP : Kind.OBJECT;
          default -> Kind.DYN;
        };
      }
    }
    if (e.getKind() == CelExpr.ExprKind.Kind.IDENT && peek(e.ident().name()) != null) {
      Local local = peek(e.ident().name());
      return local.size() != null && local.size().max() == 1 ? Kind.INT : Kind.DYN;
    }
    return Kind.DYN;
  }

  private boolean isMap(CelExpr e) {
    return kind(e) == Kind.MAP;
  }

  private List<String> path(CelExpr e) {
    if (e.getKind() == CelExpr.ExprKind.Kind.IDENT) {
      Local local = peek(e.ident().name());
      if (local != null) {
        return local.path();
      }
    }
    return paths.getOrDefault(e.id(), List.of());
  }

  private void push(String name, Local local) {
    locals.computeIfAbsent(name, k -> new ArrayDeque<>()).push(local);
  }

  private void pop(String name) {
    locals.get(name).pop();
  }

  private Local peek(String name) {
    Deque<Local> stack = locals.get(name);
    return stack == null || stack.isEmpty() ? null : stack.peek();
  }

  private static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }
}
