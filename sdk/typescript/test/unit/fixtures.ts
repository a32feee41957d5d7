import type { ConsumerSettings } from "../../src/config.js";
import { InMemoryIdempotencyStore, type IdempotencyStore } from "../../src/idempotency.js";
import type { Inbound } from "../../src/message.js";
import type { Logger } from "../../src/observe.js";
import type { ProcessorContext } from "../../src/processor.js";
import { Staircase } from "../../src/staircase.js";
import { Slots } from "../../src/timed.js";
import { noTracing } from "../../src/tracing.js";

export const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export const pay: ConsumerSettings = { kind: "command", name: "pay", queue: "q.payment.pay", staircase: new Staircase(3, [30_000, 120_000]) };

export function context(overrides: Partial<ProcessorContext> = {}, store: IdempotencyStore = new InMemoryIdempotencyStore()): ProcessorContext {
  return {
    service: "payment",
    store,
    listener: {},
    logger: quiet,
    tracing: noTracing,
    slots: new Slots(100),
    handlerTimeoutMs: 60_000,
    maxResultBytes: 1024 * 1024,
    now: Date.now,
    stopping: () => false,
    ...overrides,
  };
}

export function command(input: unknown, headers: Record<string, unknown> = {}, messageId = "m-1"): Inbound {
  return {
    exchange: "payment.command.topic.ex",
    routingKey: "service.payment.pay",
    redelivered: false,
    properties: { messageId, correlationId: "i-1", contentType: "application/json", headers },
    headers: {
      "baton-entity": "order",
      "baton-action": "pay",
      "baton-instance": "i-1",
      "baton-step": "charge",
      "baton-attempt": 1,
      "baton-workflow": "order-fulfilment",
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      ...headers,
    },
    body: Buffer.from(JSON.stringify({ instanceId: "i-1", workflow: "order-fulfilment", step: "charge", attempt: 1, businessKey: "order-1", input })),
  };
}
