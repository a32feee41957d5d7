import * as api from "@opentelemetry/api";
import assert from "node:assert/strict";
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import type { Outbound } from "../../src/message.js";
import { success } from "../../src/outcome.js";
import { CommandProcessor } from "../../src/processor.js";
import { loadTracing } from "../../src/tracing.js";
import { command, context, pay } from "./fixtures.js";

/** The least of a W3C propagator and a recording tracer, standing in for an application's OpenTelemetry SDK. */
const propagator: api.TextMapPropagator = {
  inject(ctx, carrier, setter) {
    const sc = api.trace.getSpanContext(ctx);
    if (sc) setter.set(carrier, "traceparent", `00-${sc.traceId}-${sc.spanId}-0${sc.traceFlags}`);
  },
  extract(ctx, carrier, getter) {
    const v = getter.get(carrier, "traceparent");
    const m = typeof v === "string" ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-0([0-9])$/.exec(v) : null;
    return m ? api.trace.setSpanContext(ctx, { traceId: m[1] as string, spanId: m[2] as string, traceFlags: Number(m[3]), isRemote: true }) : ctx;
  },
  fields: () => ["traceparent"],
};

const started: { name: string; parent: string | undefined }[] = [];
const tracer: api.Tracer = {
  startSpan(name, _options, ctx) {
    const parent = ctx ? api.trace.getSpanContext(ctx) : undefined;
    started.push({ name, parent: parent?.spanId });
    const sc = { traceId: parent?.traceId ?? randomBytes(16).toString("hex"), spanId: randomBytes(8).toString("hex"), traceFlags: 1 };
    const span = api.trace.wrapSpanContext(sc);
    return Object.assign(Object.create(span) as api.Span, { isRecording: () => true, spanContext: () => sc });
  },
  startActiveSpan: (() => {
    throw new Error("not used");
  }) as api.Tracer["startActiveSpan"],
};

/** What the SDK's AsyncLocalStorage context manager does: the active context follows the async call. */
class ContextManager implements api.ContextManager {
  private readonly storage = new AsyncLocalStorage<api.Context>();
  active(): api.Context {
    return this.storage.getStore() ?? api.ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: api.Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: api.Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    return this;
  }
}

describe("tracing with OpenTelemetry registered", () => {
  it("handles a command in a span whose parent is its traceparent, and names that span on the event", async () => {
    api.context.setGlobalContextManager(new ContextManager());
    api.propagation.setGlobalPropagator(propagator);
    api.trace.setGlobalTracerProvider({ getTracer: () => tracer });
    let inHandler: string | undefined;
    const p = new CommandProcessor(context({ tracing: await loadTracing() }), pay, () => {
      inHandler = api.trace.getSpanContext(api.context.active())?.spanId;
      return success();
    });
    const decision = await p.decide(command({}));
    const event = (decision as unknown as { publishes: Outbound[] }).publishes[0] as Outbound;
    const traceparent = String(event.properties.headers["traceparent"]);
    assert.deepEqual(started, [{ name: "payment pay", parent: "b7ad6b7169203331" }]);
    assert.match(traceparent, /^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    assert.notEqual(traceparent, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    assert.equal(traceparent.split("-")[2], inHandler);
  });
});
