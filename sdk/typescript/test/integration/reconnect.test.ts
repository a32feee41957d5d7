import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { BatonWorker, success } from "../../src/index.js";
import type { Logger } from "../../src/observe.js";
import { closeConnections, eventually, TestBroker } from "./broker.js";

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const service = "shipping";

describe("a worker whose connections drop while a handler runs", () => {
  const broker = new TestBroker();
  const name = `baton-ts-test-${randomUUID().substring(0, 8)}`;
  let events = "";
  let worker: BatonWorker;
  let runs = 0;
  let started!: () => void;
  const handlerStarted = new Promise<void>((resolve) => (started = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));

  before(async () => {
    await broker.open();
    events = await broker.declare(service, [{ name: "ship", maxAttempts: 1, delays: [], delaysMs: [] }]);
    worker = BatonWorker.fromEnvironment({ logger: quiet, connectionName: name }, {
      BATON_SERVICE: service,
      BATON_RABBITMQ_URI: broker.uri,
      BATON_COMMANDS: "ship",
    }).command("ship", async () => {
      runs++;
      started();
      await released;
      return success({ tracking: "TRK-1" });
    });
    await worker.start();
  });

  after(async () => {
    await worker?.stop();
    await broker.close();
  });

  it("reconnects, publishes the outcome once the handler ends, answers the redelivery from the store: one run", async () => {
    await broker.sendCommand(service, "ship", {});
    await handlerStarted;
    await eventually(async () => (await closeConnections(name)) > 0, 10_000, "worker connections found");
    await eventually(() => worker.consuming, 20_000, "consuming again");
    release();
    const event = await broker.next(events, 20_000);
    assert.equal(event.fields.routingKey, "order.ship.success");
    await eventually(async () => {
      const q = await broker.count("q.shipping.ship");
      return q.messages === 0 && q.unacked === 0;
    }, 20_000, "command settled");
    assert.equal(runs, 1);
  });
});
