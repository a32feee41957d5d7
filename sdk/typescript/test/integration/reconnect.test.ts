import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { BatonWorker, success } from "../../src/index.js";
import type { Logger } from "../../src/observe.js";
import { closeConnections, connectionsNamed, eventually, TestBroker } from "./broker.js";

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

describe("a worker whose password is read from a mounted Secret file", () => {
  const broker = new TestBroker();
  const name = `baton-ts-test-${randomUUID().substring(0, 8)}`;
  const user = `baton-ts-user-${randomUUID().substring(0, 8)}`;
  const dir = mkdtempSync(join(tmpdir(), "baton-ts-secret-"));
  const passwordFile = join(dir, "password");
  const warnings: string[] = [];
  let events = "";
  let worker: BatonWorker;

  /** Sends `act` with `value` and waits for its success event echoing it. */
  async function answers(value: number): Promise<void> {
    await broker.sendCommand("rotating", "act", { value });
    const event = await broker.next(events, 30_000);
    assert.equal(event.fields.routingKey, "order.act.success");
    assert.deepEqual(JSON.parse(event.content.toString()).output, { echo: value });
  }

  before(async () => {
    await broker.open();
    await broker.addUser(user, "first-secret");
    writeFileSync(passwordFile, "first-secret\n");
    events = await broker.declare("rotating", [{ name: "act", maxAttempts: 1, delays: [], delaysMs: [] }]);
    worker = BatonWorker.fromEnvironment({ logger: { ...quiet, warn: (m) => warnings.push(m) }, connectionName: name }, {
      BATON_SERVICE: "rotating",
      BATON_RABBITMQ_URI: broker.address,
      BATON_RABBITMQ_USERNAME: user,
      BATON_RABBITMQ_PASSWORD_FILE: passwordFile,
      BATON_COMMANDS: "act",
    }).command<{ value: number }>("act", async (cmd) => success({ echo: cmd.input.value }));
    await worker.start();
  });

  after(async () => {
    await worker?.stop();
    await broker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reconnects with the password the file holds at each attempt, after the broker refused the old one", async () => {
    await answers(1);
    await broker.setPassword(user, "second-secret");
    // Both connections (consuming and publishing) must be listed before they are closed: the listing lags.
    await eventually(async () => (await connectionsNamed(name)).length === 2, 10_000, "both worker connections listed");
    await closeConnections(name);
    // The Secret file is not updated yet: the broker refuses the reconnect, and the worker keeps trying.
    await eventually(() => warnings.some((w) => w.includes("cannot connect") && w.includes("ACCESS")), 20_000, "a reconnect refused");
    assert.equal(worker.consuming, false);
    writeFileSync(passwordFile, "second-secret\n");
    await eventually(() => worker.consuming, 30_000, "consuming again with the new password");
    await answers(2);
    assert.ok(warnings.every((w) => !w.includes("first-secret") && !w.includes("second-secret")), "no log line shows a password");
  });

  it("subscribes again when the broker cancels its consumer because the queue was deleted and declared again", async () => {
    await broker.channel.deleteQueue("q.rotating.act");
    await broker.declare("rotating", [{ name: "act", maxAttempts: 1, delays: [], delaysMs: [] }]);
    await eventually(async () => worker.consuming && (await broker.consumers("q.rotating.act")) === 1, 30_000, "consuming the new queue");
    await answers(3);
  });
});
