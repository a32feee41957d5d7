import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { readCredentials, readSettings } from "../../src/config.js";
import { formatDuration, parseDuration } from "../../src/duration.js";
import { InvalidSettingsError } from "../../src/errors.js";
import { eventMessageId } from "../../src/events.js";
import { deadlineHeader, isJsonContentType, retriesHeader } from "../../src/headers.js";
import { InMemoryIdempotencyStore } from "../../src/idempotency.js";
import { commandLimit, expiredBy } from "../../src/limits.js";
import { names } from "../../src/names.js";
import { failed, outcomeFromJson, outcomeToJson, success } from "../../src/outcome.js";
import { Staircase } from "../../src/staircase.js";

describe("durations", () => {
  it("parse unit pairs and name queues by the largest unit that divides", () => {
    assert.equal(parseDuration("1m30s"), 90_000);
    assert.equal(formatDuration(parseDuration("120s")), "2m");
    assert.equal(formatDuration(1500), "1500ms");
    assert.equal(names.retryQueue("payment", "pay", 30_000), "q.retry.payment.pay.30s");
    assert.throws(() => parseDuration("30"), /not a duration/);
    assert.throws(() => parseDuration("0s"), /zero/);
  });
});

describe("staircase", () => {
  it("retries while r + 1 < maxAttempts, the last delay repeating", () => {
    const s = new Staircase(5, [1_000, 2_000]);
    assert.deepEqual([1, 2, 3, 4].map((r) => s.delayBeforeRetry(r)), [1_000, 2_000, 2_000, 2_000]);
    assert.equal(s.mayRetryAfter(3), true);
    assert.equal(s.mayRetryAfter(4), false);
    assert.equal(Staircase.NONE.mayRetryAfter(0), false);
    assert.throws(() => new Staircase(3, []), /no delays/);
  });
});

describe("headers", () => {
  it("read a deadline written as a number, a bigint or decimal text, and anything else as none", () => {
    assert.equal(deadlineHeader({ "baton-deadline": 1_700_000_000_000 }), 1_700_000_000_000);
    assert.equal(deadlineHeader({ "baton-deadline": 1_700_000_000_000n }), 1_700_000_000_000);
    assert.equal(deadlineHeader({ "baton-deadline": Buffer.from(" 1700000000000 ") }), 1_700_000_000_000);
    assert.equal(deadlineHeader({ "baton-deadline": "soon" }), undefined);
    assert.equal(deadlineHeader({ "baton-deadline": 1.5 }), undefined);
    assert.equal(deadlineHeader({}), undefined);
  });

  it("treat baton-retries that is not a whole number as unprocessable", () => {
    assert.equal(retriesHeader({}), 0);
    assert.equal(retriesHeader({ "baton-retries": "2" }), 2);
    assert.throws(() => retriesHeader({ "baton-retries": "two" }), { name: "UnprocessableMessageError" });
  });

  it("accept JSON content types and none", () => {
    assert.equal(isJsonContentType(undefined), true);
    assert.equal(isJsonContentType("application/json; charset=utf-8"), true);
    assert.equal(isJsonContentType("application/cloudevents+json"), true);
    assert.equal(isJsonContentType("text/plain"), false);
  });
});

describe("deadline and limits", () => {
  it("expire from the deadline on, never before", () => {
    assert.equal(expiredBy({ "baton-deadline": 1_000 }, 999), undefined);
    assert.equal(expiredBy({ "baton-deadline": 1_000 }, 1_000), 0);
    assert.equal(expiredBy({ "baton-deadline": 1_000 }, 1_250), 250);
    assert.equal(expiredBy({}, 1_250), undefined);
  });

  it("give a handler the smallest of its own limit, the step timeout and the time left", () => {
    assert.equal(commandLimit({}, 60_000, 0), 60_000);
    assert.equal(commandLimit({ "baton-step-timeout": 5_000 }, 60_000, 0), 5_000);
    assert.equal(commandLimit({ "baton-step-timeout": 5_000, "baton-deadline": 2_000 }, 60_000, 0), 2_000);
    assert.equal(commandLimit({ "baton-deadline": 10 }, 60_000, 10), 1);
  });
});

describe("outcomes and events", () => {
  it("keep outcomes in the Java SDK's JSON form", () => {
    assert.equal(outcomeToJson(success({ a: 1 })), '{"result":"success","output":{"a":1}}');
    assert.deepEqual(outcomeFromJson(outcomeToJson(failed("LIMIT", "too much"))), failed("LIMIT", "too much"));
    assert.deepEqual(success(), { result: "success", output: {} });
    assert.throws(() => failed(" ", "x"), /errorCode/);
  });

  it("give an event the message id the Java SDK gives (a name-based UUID of the command's and the result)", () => {
    assert.equal(eventMessageId("m-1", "success"), "c50adfe4-7a02-3371-ba67-827ceb7ac2fe");
    assert.notEqual(eventMessageId("m-1", "failed"), eventMessageId("m-1", "success"));
  });
});

describe("in-memory idempotency store", () => {
  it("forgets the oldest outcome beyond its capacity", async () => {
    const store = new InMemoryIdempotencyStore(2);
    await store.remember("a", success(1));
    await store.remember("b", success(2));
    await store.remember("c", success(3));
    assert.equal(await store.find("a"), undefined);
    assert.deepEqual(await store.find("c"), success(3));
    assert.equal(store.size, 2);
  });
});

describe("settings from the environment", () => {
  const env = {
    BATON_SERVICE: "payment",
    BATON_PREFETCH: "20",
    BATON_COMMANDS: "pay,refund-all",
    BATON_CONSUMER_PAY_MAX_ATTEMPTS: "4",
    BATON_CONSUMER_PAY_DELAYS: "30s,2m,10m",
    BATON_SUBSCRIPTIONS: "notify",
    BATON_CONSUMER_NOTIFY_SOURCE: "orders",
    BATON_CONSUMER_NOTIFY_PATTERN: "*.pay.failed",
    BATON_CONSUMER_NOTIFY_QUEUE: "q.payment.notify",
    BATON_HANDLER_TIMEOUT: "90s",
  };

  it("read the operator's variables", () => {
    const s = readSettings(env);
    assert.equal(s.service, "payment");
    assert.equal(s.prefetch, 20);
    assert.equal(s.handlerTimeoutMs, 90_000);
    assert.deepEqual(s.commands.map((c) => [c.name, c.queue, c.staircase.maxAttempts, c.staircase.delaysMs]), [
      ["pay", "q.payment.pay", 4, [30_000, 120_000, 600_000]],
      ["refund-all", "q.payment.refund-all", 1, []],
    ]);
    assert.equal(s.subscriptions[0]?.kind, "subscription");
  });

  it("name every missing or malformed variable at once", () => {
    const e = (() => {
      try {
        readSettings({ BATON_PREFETCH: "0", BATON_COMMANDS: "pay", BATON_CONSUMER_PAY_MAX_ATTEMPTS: "3", BATON_SUBSCRIPTIONS: "x" });
      } catch (err) {
        return err as InvalidSettingsError;
      }
      throw new Error("no error");
    })();
    assert.ok(e instanceof InvalidSettingsError);
    const text = e.problems.join("\n");
    for (const v of ["BATON_SERVICE", "BATON_PREFETCH", "BATON_CONSUMER_PAY_DELAYS", "BATON_CONSUMER_X_SOURCE", "BATON_CONSUMER_X_PATTERN"]) {
      assert.match(text, new RegExp(v));
    }
  });

  it("read credentials afresh, from a mounted Secret file over the URI's, never quoting the password", () => {
    const dir = mkdtempSync(join(tmpdir(), "baton-creds-"));
    const file = join(dir, "password");
    writeFileSync(file, "first\n");
    const e = { BATON_RABBITMQ_URI: "amqp://u:in-uri@rabbit:5673/%2Fshop", BATON_RABBITMQ_USERNAME: "baton-payment", BATON_RABBITMQ_PASSWORD_FILE: file };
    const c = readCredentials(e);
    assert.deepEqual([c.protocol, c.addresses, c.vhost, c.username, c.password], ["amqp", [{ hostname: "rabbit", port: 5673 }], "/shop", "baton-payment", "first"]);
    writeFileSync(file, "rotated\n");
    assert.equal(readCredentials(e).password, "rotated");
    assert.equal(readCredentials({ BATON_RABBITMQ_URI: "amqp://h" }).vhost, "/");
    assert.throws(() => readCredentials({ BATON_RABBITMQ_URI: "http://u:secret@h" }), (err: Error) => !err.message.includes("secret"));
  });
});
