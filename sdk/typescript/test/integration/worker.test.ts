import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BatonWorker, failed, success } from "../../src/index.js";
import type { Logger } from "../../src/observe.js";
import { eventually, TestBroker } from "./broker.js";

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const service = "payment";

describe("a worker against the real broker", () => {
  const broker = new TestBroker();
  let events = "";
  let worker: BatonWorker;
  const runs = new Map<string, number>();
  const run = (id: string | undefined): void => {
    runs.set(id ?? "", (runs.get(id ?? "") ?? 0) + 1);
  };

  before(async () => {
    await broker.open();
    events = await broker.declare(service, [{ name: "pay", maxAttempts: 3, delays: ["100ms", "200ms"], delaysMs: [100, 200] }]);
    worker = BatonWorker.fromEnvironment({ logger: quiet, healthPort: 0 }, {
      BATON_SERVICE: service,
      BATON_RABBITMQ_URI: broker.uri,
      BATON_COMMANDS: "pay",
      BATON_CONSUMER_PAY_MAX_ATTEMPTS: "3",
      BATON_CONSUMER_PAY_DELAYS: "100ms,200ms",
      BATON_PREFETCH: "5",
    }).command<{ case: string; amount?: number }>("pay", async (cmd) => {
      run(cmd.messageId);
      switch (cmd.input.case) {
        case "decline":
          return failed("CARD_DECLINED", "declined");
        case "crash":
          throw new Error("bank down");
        default:
          return success({ paid: cmd.input.amount });
      }
    });
    await worker.start();
  });

  after(async () => {
    await worker?.stop();
    await broker.close();
  });

  it("answers success after a confirmed publish, and acks only then", async () => {
    const id = await broker.sendCommand(service, "pay", { case: "ok", amount: 42 });
    const event = await broker.next(events);
    assert.equal(event.fields.routingKey, "order.pay.success");
    assert.deepEqual(JSON.parse(event.content.toString()), { instanceId: "i-1", step: "charge", attempt: 1, output: { paid: 42 } });
    assert.equal(event.properties.correlationId, "i-1");
    assert.equal(event.properties.deliveryMode, 2);
    assert.equal(event.properties.headers?.["baton-namespace"], "default");
    assert.ok(event.properties.messageId);
    await eventually(async () => (await broker.count("q.payment.pay")).unacked === 0 && (await broker.count("q.payment.pay")).messages === 0, 10_000, "command acked");
    assert.equal(runs.get(id), 1);
  });

  it("answers a business failure with failed, run once", async () => {
    const id = await broker.sendCommand(service, "pay", { case: "decline" });
    const event = await broker.next(events);
    assert.equal(event.fields.routingKey, "order.pay.failed");
    assert.equal(JSON.parse(event.content.toString()).errorCode, "CARD_DECLINED");
    assert.equal(runs.get(id), 1);
  });

  it("climbs the staircase to the parking lot with an error event", async () => {
    const id = await broker.sendCommand(service, "pay", { case: "crash" });
    const parked = await broker.next("q.dlx.payment.pay");
    const h = parked.properties.headers ?? {};
    assert.equal(h["x-exception-message"], "bank down");
    assert.equal(h["x-exception-type"], "Error");
    assert.equal(h["x-original-routing-key"], "service.payment.pay");
    assert.equal(Number(h["baton-retries"]), 2);
    assert.equal(parked.properties.messageId, id);
    const event = await broker.next(events);
    assert.equal(event.fields.routingKey, "order.pay.error");
    assert.equal(runs.get(id), 3);
  });

  it("answers a duplicate message_id from the store, with the same event message_id", async () => {
    const id = await broker.sendCommand(service, "pay", { case: "ok", amount: 7 });
    const first = await broker.next(events);
    await broker.sendCommand(service, "pay", { case: "ok", amount: 7 }, {}, id);
    const second = await broker.next(events);
    assert.equal(second.properties.messageId, first.properties.messageId);
    assert.equal(runs.get(id), 1);
  });

  it("answers expired past the deadline, without running the handler or parking anything", async () => {
    const id = await broker.sendCommand(service, "pay", { case: "ok" }, { "baton-deadline": Date.now() - 1_000 });
    const event = await broker.next(events);
    assert.equal(event.fields.routingKey, "order.pay.expired");
    assert.match(JSON.parse(event.content.toString()).reason, /deadline/);
    assert.equal(runs.get(id), undefined);
    assert.equal((await broker.count("q.dlx.payment.pay")).messages, 0);
  });

  it("answers its health endpoint 200 while consuming", async () => {
    const res = await fetch(`http://127.0.0.1:${worker.healthPort()}/healthz`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { status: string }).status, "UP");
  });
});

describe("a worker that cannot consume its queue", () => {
  const broker = new TestBroker();

  before(() => broker.open());
  after(() => broker.close());

  // Stopped right after its health answer, often while its connection is still being opened: it stops all the same
  // (it once waited forever for a connection stop() had not seen). Bounded, so that a hang fails instead of waiting.
  it("answers its health endpoint 503 while not consuming, and stops", { timeout: 30_000 }, async () => {
    const worker = BatonWorker.fromEnvironment({ logger: quiet, healthPort: 0 }, {
      BATON_SERVICE: "nowhere",
      BATON_RABBITMQ_URI: broker.uri,
      BATON_COMMANDS: "missing",
    }).command("missing", () => success());
    void worker.start(); // never resolves: q.nowhere.missing does not exist
    await eventually(() => worker.healthPort() !== undefined, 5_000, "health server listening");
    const res = await fetch(`http://127.0.0.1:${worker.healthPort()}/healthz`);
    assert.equal(res.status, 503);
    assert.equal(worker.consuming, false);
    await worker.stop();
  });
});
