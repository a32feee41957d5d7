import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runTimed, Slots } from "../../src/timed.js";

describe("a handler's time limit", () => {
  it("aborts the signal at the limit, waits for the handler, and reports it stuck at twice the limit and each doubling", async () => {
    const stuck: number[] = [];
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const result = runTimed(10, async (signal) => {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      await ended;
      return "late";
    }, (ms) => {
      stuck.push(ms);
      if (stuck.length === 2) end();
    });
    const r = await result;
    assert.equal(r.value, "late");
    assert.equal(r.overran, true);
    assert.equal(stuck.length, 2);
    assert.ok((stuck[0] as number) >= 20 && (stuck[1] as number) >= 40, `stuck at ${stuck.join(", ")} ms`);
  });

  it("lets a handler that ends in time end normally", async () => {
    const r = await runTimed(1_000, () => 42, () => assert.fail("not stuck"));
    assert.deepEqual([r.value, r.failed, r.overran], [42, false, false]);
    const thrown = await runTimed(1_000, () => {
      throw new Error("boom");
    }, () => undefined);
    assert.equal((thrown.error as Error).message, "boom");
  });
});

describe("handler slots", () => {
  it("let further handlers wait for a free slot", async () => {
    const slots = new Slots(1);
    const first = await slots.acquire();
    let second = false;
    const waiting = slots.acquire().then((release) => {
      second = true;
      return release;
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(second, false);
    first();
    (await waiting)();
    assert.equal(second, true);
  });
});
