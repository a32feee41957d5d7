package dev.baton.workflow;

import dev.baton.api.v1alpha1.Bounds;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.navigation.CelNavigableAst;
import dev.cel.common.navigation.CelNavigableExpr;
import dev.cel.common.types.CelType;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A compiled, type-checked CEL program of the Workflow language, over {@code input} (the instance's input, a map) and
 * {@code steps} (step name → {@code {status, output}} of the steps that have finished; {@code has(steps.x)} tells
 * whether step x has). Compiled once when the Workflow is parsed; evaluated by the runtime. Evaluation is bounded:
 * every comprehension ({@code all}, {@code exists}, {@code map}, {@code filter}) together may iterate at most
 * {@link #MAX_ITERATIONS} times, and the text is at most {@link Bounds#EXPRESSION} characters.
 */
public final class Expression {

  /** Iterations of all comprehensions of one evaluation together. */
  public static final int MAX_ITERATIONS = 1000;

  private static final CelType STEP_RESULT = MapType.create(SimpleType.STRING, SimpleType.DYN);

  private static final CelOptions OPTIONS = CelOptions.current()
      .comprehensionMaxIterations(MAX_ITERATIONS)
      .build();

  private static final Cel VALUES = environment(false, false);
  private static final Cel CONDITIONS = environment(true, false);
  private static final Cel ITERATION_VALUES = environment(false, true);
  private static final Cel ITERATION_CONDITIONS = environment(true, true);

  private final String text;
  private final boolean condition;
  private final CelRuntime.Program program;
  private final Set<String> referencedSteps;
  /** What CEL's type check knows of the result: a list, or dynamic (unknown until it runs). */
  private final boolean mayBeList;
  private final String resultType;

  private Expression(String text, boolean condition, CelRuntime.Program program, Set<String> referencedSteps,
      boolean mayBeList, String resultType) {
    this.text = text;
    this.condition = condition;
    this.program = program;
    this.referencedSteps = Set.copyOf(referencedSteps);
    this.mayBeList = mayBeList;
    this.resultType = resultType;
  }

  /** @param iteration inside a map's iteration: {@code item} and {@code index} are declared too */
  private static Cel environment(boolean condition, boolean iteration) {
    var builder = CelFactory.standardCelBuilder()
        .setOptions(OPTIONS)
        .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
        .addVar("input", MapType.create(SimpleType.STRING, SimpleType.DYN))
        .addVar("steps", MapType.create(SimpleType.STRING, STEP_RESULT))
        .addCompilerLibraries(CelExtensions.strings())
        .addRuntimeLibraries(CelExtensions.strings());
    if (iteration) {
      builder.addVar("item", SimpleType.DYN).addVar("index", SimpleType.INT);
    }
    if (condition) {
      builder.setResultType(SimpleType.BOOL);
    }
    return builder.build();
  }

  /** An expression yielding any JSON value (a task's input mapping). */
  public static Compiled value(String text) {
    return compile(text, false, false);
  }

  /** An expression yielding a bool (a choice case's {@code when}). */
  public static Compiled condition(String text) {
    return compile(text, true, false);
  }

  /** An expression inside a map's iteration, which also reads {@code item} and {@code index}. */
  public static Compiled value(String text, boolean inIteration) {
    return compile(text, false, inIteration);
  }

  /** A condition inside a map's iteration, which also reads {@code item} and {@code index}. */
  public static Compiled condition(String text, boolean inIteration) {
    return compile(text, true, inIteration);
  }

  /**
   * An expression that must yield a list (a map's {@code items}): refused when CEL knows its type and it is not a list
   * ({@code input.items} is dynamic, checked when it runs).
   */
  public static Compiled list(String text) {
    Compiled compiled = compile(text, false, false);
    if (compiled.ok() && !compiled.expression().mayBeList) {
      return new Compiled(null, "it yields " + compiled.expression().resultType + ", not a list");
    }
    return compiled;
  }

  /** An expression, or why it does not compile (the CEL error, with its position). */
  public record Compiled(Expression expression, String error) {

    public boolean ok() {
      return error == null;
    }
  }

  private static Compiled compile(String text, boolean condition, boolean inIteration) {
    if (text == null || text.isBlank()) {
      return new Compiled(null, "the expression is empty");
    }
    if (text.length() > Bounds.EXPRESSION) {
      return new Compiled(null, "the expression is " + text.length() + " characters long; at most " + Bounds.EXPRESSION
          + " are allowed");
    }
    Cel cel = inIteration ? (condition ? ITERATION_CONDITIONS : ITERATION_VALUES) : (condition ? CONDITIONS : VALUES);
    try {
      CelAbstractSyntaxTree ast = cel.compile(text).getAst();
      CelType type = ast.getResultType();
      boolean mayBeList = type instanceof ListType || type.equals(SimpleType.DYN) || type.equals(SimpleType.ANY);
      return new Compiled(new Expression(text, condition, cel.createProgram(ast), stepsReferenced(ast), mayBeList,
          type.name()), null);
    } catch (CelValidationException e) {
      return new Compiled(null, firstLines(e.getMessage()));
    } catch (CelEvaluationException e) {
      return new Compiled(null, e.getMessage());
    }
  }

  /**
   * CEL's errors without the lines that draw the expression and a caret under the error (the position is in the error
   * line): a condition message is read on one line.
   */
  private static String firstLines(String message) {
    return message.lines().filter(l -> l.startsWith("ERROR:")).map(l -> l.substring("ERROR: ".length()))
        .reduce((a, b) -> a + "; " + b).orElse(message);
  }

  /** The names used as {@code steps.x} or {@code steps['x']}, so the translator can refuse an unknown step. */
  private static Set<String> stepsReferenced(CelAbstractSyntaxTree ast) {
    Set<String> names = new TreeSet<>();
    CelNavigableAst.fromAst(ast).getRoot().allNodes().map(CelNavigableExpr::expr).forEach(e -> {
      if (e.getKind() == CelExpr.ExprKind.Kind.SELECT && isSteps(e.select().operand())) {
        names.add(e.select().field());
      } else if (e.getKind() == CelExpr.ExprKind.Kind.CALL && e.call().function().equals("_[_]")
          && e.call().args().size() == 2 && isSteps(e.call().args().get(0))
          && e.call().args().get(1).getKind() == CelExpr.ExprKind.Kind.CONSTANT
          && e.call().args().get(1).constant().getKind() == CelConstant.Kind.STRING_VALUE) {
        names.add(e.call().args().get(1).constant().stringValue());
      }
    });
    return names;
  }

  private static boolean isSteps(CelExpr e) {
    return e.getKind() == CelExpr.ExprKind.Kind.IDENT && e.ident().name().equals("steps");
  }

  public String text() {
    return text;
  }

  /** The step names the expression reads from {@code steps} by a constant name. */
  public Set<String> referencedSteps() {
    return referencedSteps;
  }

  /**
   * Evaluates over the instance's input and the finished steps ({@code name -> {status, output}}), JSON in (plain
   * Java or Jackson nodes: {@link CelJson}), plain JSON-able Java out.
   *
   * @throws ExpressionException when evaluation fails, with the expression and CEL's reason in the message
   */
  public Object evaluate(Map<String, Object> input, Map<String, Object> steps) {
    return evaluate(input, steps, null);
  }

  /**
   * Evaluates inside a map's iteration (or outside one, when {@code iteration} is null).
   *
   * @throws ExpressionException when evaluation fails, with the expression and CEL's reason in the message
   */
  public Object evaluate(Map<String, Object> input, Map<String, Object> steps, Iteration iteration) {
    Map<String, Object> vars = new LinkedHashMap<>();
    vars.put("input", CelJson.toCel(input == null ? Map.of() : input));
    vars.put("steps", CelJson.toCel(steps == null ? Map.of() : steps));
    if (iteration != null) {
      vars.put("item", CelJson.toCel(iteration.item()));
      vars.put("index", (long) iteration.index());
    }
    try {
      return CelJson.toJson(program.eval(vars));
    } catch (CelEvaluationException e) {
      throw new ExpressionException("'" + text + "' failed: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new ExpressionException("'" + text + "' failed: " + e, e);
    }
  }

  /**
   * Evaluates a condition.
   *
   * @throws ExpressionException when evaluation fails or yields anything but a bool
   */
  public boolean test(Map<String, Object> input, Map<String, Object> steps) {
    return test(input, steps, null);
  }

  /**
   * Evaluates a condition inside a map's iteration (or outside one, when {@code iteration} is null).
   *
   * @throws ExpressionException when evaluation fails or yields anything but a bool
   */
  public boolean test(Map<String, Object> input, Map<String, Object> steps, Iteration iteration) {
    Object result = evaluate(input, steps, iteration);
    if (result instanceof Boolean b) {
      return b;
    }
    throw new ExpressionException("'" + text + "' yielded " + (result == null ? "null" : describe(result))
        + ", not a bool");
  }

  private static String describe(Object value) {
    String json = String.valueOf(value);
    return (json.length() > 80 ? json.substring(0, 80) + "..." : json) + " (" + value.getClass().getSimpleName() + ")";
  }

  /** Whether this is a condition (type-checked to yield a bool). */
  public boolean isCondition() {
    return condition;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Expression other && other.text.equals(text) && other.condition == condition;
  }

  @Override
  public int hashCode() {
    return text.hashCode() * 31 + Boolean.hashCode(condition);
  }

  @Override
  public String toString() {
    return text;
  }
}
