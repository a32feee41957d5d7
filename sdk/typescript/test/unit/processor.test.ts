import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ConsumerSettings } from "../../src/config.js";
import { UnprocessableMessageError } from "../../src/errors.js";
import { InMemoryIdempotencyStore } from "../../src/idempotency.js";
import type { Outbound } from "../../src/message.js";
import { failed, type Outcome, success } from "../../src/outcome.js";
import { type Command, CommandProcessor, type Decision, SubscriptionProcessor } from "../../src/processor.js";
import { Staircase } from "../../src/staircase.js";
import { command, context, pay } from "./fixtures.js";

function publishes(d: Decision): readonly Outbound[] {
  assert.equal(d.kind, "publish-then-ack");
  return d.kind === "publish-then-ack" ? d.publishes : [];
}

const json = (o: Outbound): Record<string, unknown> => JSON.parse(o.body.toString("utf8")) as Record<string, unknown>;

describe("a command's decision", () => {
  it("publishes the success event with the headers copied, then acks", async () => {
    const p = new CommandProcessor<{ amount: number }, unknown>(context(), pay, async (c) => success({ paid: c.input.amount }));
    const [event] = publishes(await p.decide(command({ amount: 42 }, { "baton-retries": 0 })));
    assert.ok(event);
    assert.equal(event.exchange, "payment.event.topic.ex");
    assert.equal(event.routingKey, "order.pay.success");
    assert.deepEqual(json(event), { instanceId: "i-1", step: "charge", attempt: 1, output: { paid: 42 } });
    assert.equal(event.properties.correlationId, "i-1");
    assert.equal(event.properties.deliveryMode, 2);
    assert.equal(event.properties.contentType, "application/json");
    assert.equal(event.properties.headers["baton-instance"], "i-1");
    assert.equal(event.properties.headers["baton-retries"], 0);
    assert.equal(event.properties.headers["traceparent"], "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  });

  it("publishes a business failure as failed, not retried", async () => {
    const p = new CommandProcessor(context(), pay, async () => failed("LIMIT", "over the limit"));
    const [event] = publishes(await p.decide(command({})));
    assert.equal(event?.routingKey, "order.pay.failed");
    assert.deepEqual(json(event as Outbound), { instanceId: "i-1", step: "charge", attempt: 1, errorCode: "LIMIT", reason: "over the limit" });
  });

  it("climbs the staircase on a throw: the command unchanged but baton-retries, to the tier of its delay", async () => {
    const p = new CommandProcessor(context(), pay, async () => {
      throw new Error("bank down");
    });
    const message = command({ amount: 1 }, { "baton-retries": 1, "baton-deadline": Date.now() + 60_000 });
    const [retry] = publishes(await p.decide(message));
    assert.equal(retry?.exchange, "payment.retry.direct.ex");
    assert.equal(retry?.routingKey, "q.retry.payment.pay.2m");
    assert.equal(retry?.properties.headers["baton-retries"], 2);
    assert.equal(retry?.properties.headers["baton-deadline"], message.headers["baton-deadline"]);
    assert.equal(retry?.properties.messageId, "m-1");
    assert.deepEqual(retry?.body, message.body);
  });

  it("parks the command and publishes an error event when the staircase is spent", async () => {
    const p = new CommandProcessor(context(), pay, async () => {
      throw new TypeError("bank down");
    });
    const [dead, error] = publishes(await p.decide(command({}, { "baton-retries": 2 })));
    assert.equal(dead?.routingKey, "q.dlx.payment.pay");
    assert.equal(dead?.properties.headers["x-exception-message"], "bank down");
    assert.equal(dead?.properties.headers["x-exception-type"], "TypeError");
    assert.equal(dead?.properties.headers["x-original-routing-key"], "service.payment.pay");
    assert.equal(dead?.properties.headers["x-original-exchange"], "payment.command.topic.ex");
    assert.equal(error?.routingKey, "order.pay.error");
    assert.deepEqual(json(error as Outbound), { instanceId: "i-1", step: "charge", attempt: 1, errorCode: "TypeError", reason: "bank down" });
  });

  it("parks an unreadable message at once, whatever its staircase", async () => {
    let runs = 0;
    const p = new CommandProcessor(context(), pay, async () => {
      runs++;
      return success();
    });
    const notJson = { ...command({}), body: Buffer.from("{not json") };
    const [dead, error] = publishes(await p.decide(notJson));
    assert.equal(dead?.routingKey, "q.dlx.payment.pay");
    assert.equal(dead?.properties.headers["x-exception-type"], "UnprocessableMessageError");
    assert.equal(error?.routingKey, "order.pay.error");
    const anonymous = command({});
    const { ["baton-entity"]: _, ...rest } = anonymous.headers;
    const [onlyDead, ...none] = publishes(await p.decide({ ...anonymous, headers: rest }));
    assert.equal(onlyDead?.routingKey, "q.dlx.payment.pay");
    assert.equal(none.length, 0);
    assert.equal(runs, 0);
  });

  it("parks input its parser refuses at once", async () => {
    const parse = (v: unknown): { amount: number } => {
      if (typeof (v as { amount?: unknown }).amount !== "number") throw new UnprocessableMessageError("amount");
      return v as { amount: number };
    };
    const p = new CommandProcessor(context(), pay, async () => success(), parse);
    const [dead] = publishes(await p.decide(command({ amount: "lots" })));
    assert.equal(dead?.routingKey, "q.dlx.payment.pay");
  });

  it("answers expired without running the handler from the deadline on", async () => {
    let runs = 0;
    const now = 1_000_000;
    const p = new CommandProcessor(context({ now: () => now }), pay, async () => {
      runs++;
      return success();
    });
    const [event, ...rest] = publishes(await p.decide(command({}, { "baton-deadline": now - 1_500 })));
    assert.equal(event?.routingKey, "order.pay.expired");
    assert.match(String(json(event as Outbound)["reason"]), /1500 ms/);
    assert.equal(rest.length, 0);
    assert.equal(runs, 0);
  });

  it("answers a duplicate from the store with the same event, even past its deadline", async () => {
    let runs = 0;
    const p = new CommandProcessor(context(), pay, async () => {
      runs++;
      return success({ n: runs });
    });
    const [first] = publishes(await p.decide(command({})));
    const [second] = publishes(await p.decide(command({}, { "baton-deadline": 1 })));
    assert.equal(runs, 1);
    assert.equal(second?.routingKey, "order.pay.success");
    assert.equal(second?.properties.messageId, first?.properties.messageId);
    assert.deepEqual(json(second as Outbound)["output"], { n: 1 });
  });

  it("parks a result over maxResultBytes at once with PayloadTooLarge and an error event", async () => {
    const p = new CommandProcessor(context({ maxResultBytes: 100 }), pay, async () => success({ blob: "x".repeat(200) }));
    const [dead, error] = publishes(await p.decide(command({})));
    assert.equal(dead?.properties.headers["x-exception-type"], "PayloadTooLarge");
    assert.equal(json(error as Outbound)["errorCode"], "PayloadTooLarge");
  });

  it("keeps a handler past its limit claimed: a copy waits, then gets the late outcome instead of a second run", async () => {
    let runs = 0;
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let aborted: Promise<void> | undefined;
    const ctx = context({ handlerTimeoutMs: 20 });
    const p = new CommandProcessor(ctx, pay, async (c: Command) => {
      runs++;
      aborted = new Promise((resolve) => c.signal.addEventListener("abort", () => resolve()));
      await finished; // deaf to the signal, as a call blocked in I/O is
      return success({ late: true });
    });
    const first = p.decide(command({}));
    await new Promise<void>((resolve) => setImmediate(resolve));
    await aborted;
    const copy = await p.decide(command({}));
    assert.equal(copy.kind, "later");
    finish();
    const [event] = publishes(await first);
    assert.deepEqual(json(event as Outbound)["output"], { late: true });
    await (copy.kind === "later" ? copy.after : undefined);
    const [again] = publishes(await p.decide(command({})));
    assert.equal(again?.properties.messageId, event?.properties.messageId);
    assert.equal(runs, 1);
  });

  it("gives a delivery back without running it once the worker is stopping", async () => {
    let runs = 0;
    const p = new CommandProcessor(context({ stopping: () => true }), pay, async () => {
      runs++;
      return success();
    });
    assert.equal((await p.decide(command({}))).kind, "give-back");
    assert.equal(runs, 0);
  });

  it("counts a throw after the limit as a technical failure", async () => {
    const p = new CommandProcessor(context({ handlerTimeoutMs: 5 }), pay, (c: Command) =>
      new Promise<Outcome<unknown>>((_, reject) => c.signal.addEventListener("abort", () => reject(new Error("aborted")))));
    const [retry] = publishes(await p.decide(command({})));
    assert.equal(retry?.routingKey, "q.retry.payment.pay.30s");
  });
});

describe("a subscription's decision", () => {
  const notify: ConsumerSettings = { kind: "subscription", name: "notify", queue: "q.payment.notify", staircase: new Staircase(2, [1_000]) };
  const event = (exchange: string, headers: Record<string, unknown> = {}) => ({
    exchange,
    routingKey: exchange === "" ? "q.payment.notify" : "order.pay.failed",
    redelivered: false,
    properties: { messageId: "e-1", headers },
    headers,
    body: Buffer.from('{"case":"crash"}'),
  });

  it("counts its own retries, keeps the event's routing key across its tier, and parks after its staircase", async () => {
    const seen: string[] = [];
    const p = new SubscriptionProcessor(context(), notify, async (e) => {
      seen.push(`${e.routingKey}/${e.retries}`);
      throw new Error("boom");
    });
    const [retry] = publishes(await p.decide(event("payment.event.topic.ex", { "baton-retries": 3 })));
    assert.equal(retry?.routingKey, "q.retry.payment.notify.1s");
    assert.equal(retry?.properties.headers["x-original-routing-key"], "order.pay.failed");
    const [dead] = publishes(await p.decide(event("", retry?.properties.headers)));
    assert.equal(dead?.routingKey, "q.dlx.payment.notify");
    assert.deepEqual(seen, ["order.pay.failed/0", "order.pay.failed/1"]);
  });

  it("acks a handled event, and a duplicate without running again", async () => {
    let runs = 0;
    const p = new SubscriptionProcessor(context({}, new InMemoryIdempotencyStore()), notify, async () => {
      runs++;
    });
    assert.equal((await p.decide(event("payment.event.topic.ex"))).kind, "ack");
    assert.equal((await p.decide(event("payment.event.topic.ex"))).kind, "ack");
    assert.equal(runs, 1);
  });
});
