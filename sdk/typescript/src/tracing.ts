/**
 * Trace context (docs/message-contract.md#a-command, `traceparent`). With `@opentelemetry/api` installed (an
 * optional peer dependency) and a tracer provider and propagator registered, each command is handled in a consumer
 * span whose parent is the command's `traceparent`, and the events name that span. Otherwise, or while no SDK is
 * registered (the API alone records nothing), the events carry the command's `traceparent` copied.
 */

import { Headers, type HeaderTable } from "./headers.js";

export interface HandlingSpan {
  /** Runs `fn` with the span current, so the handler's own spans and logs join the trace. */
  within<T>(fn: () => T): T;
  /** `traceparent` (and `tracestate`) naming this span; empty when it records nothing (the command's are copied). */
  traceHeaders(): HeaderTable;
  failed(error: unknown): void;
  end(): void;
}

export interface Tracing {
  start(service: string, consumer: string, headers: HeaderTable, attributes: Record<string, string | number>): HandlingSpan;
}

const NONE: HandlingSpan = {
  within: (fn) => fn(),
  traceHeaders: () => ({}),
  failed: () => undefined,
  end: () => undefined,
};

export const noTracing: Tracing = { start: () => NONE };

type OtelApi = typeof import("@opentelemetry/api");

/** The OpenTelemetry tracing when `@opentelemetry/api` can be loaded, else {@link noTracing}. */
export async function loadTracing(): Promise<Tracing> {
  let api: OtelApi;
  try {
    api = await import("@opentelemetry/api");
  } catch {
    return noTracing;
  }
  return otelTracing(api);
}

function text(value: unknown): string | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  return Buffer.isBuffer(value) ? value.toString("utf8") : String(value);
}

export function otelTracing(api: OtelApi): Tracing {
  const getter = {
    keys: (carrier: HeaderTable) => Object.keys(carrier),
    get: (carrier: HeaderTable, key: string) => text(carrier[key]),
  };
  return {
    start(service, consumer, headers, attributes) {
      const parent = api.propagation.extract(api.context.active(), headers, getter);
      const tracer = api.trace.getTracer("@baton/worker");
      const span = tracer.startSpan(`${service} ${consumer}`, { kind: api.SpanKind.CONSUMER, attributes }, parent);
      const active = api.trace.setSpan(parent, span);
      return {
        within: (fn) => api.context.with(active, fn),
        traceHeaders() {
          if (!span.spanContext() || !api.isSpanContextValid(span.spanContext()) || !span.isRecording()) {
            return {};
          }
          const carrier: Record<string, string> = {};
          api.propagation.inject(active, carrier);
          const out: HeaderTable = {};
          if (carrier[Headers.TRACEPARENT]) {
            out[Headers.TRACEPARENT] = carrier[Headers.TRACEPARENT];
            if (carrier[Headers.TRACESTATE]) {
              out[Headers.TRACESTATE] = carrier[Headers.TRACESTATE];
            }
          }
          return out;
        },
        failed(error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        },
        end: () => span.end(),
      };
    },
  };
}
