// The package promises ES modules and CommonJS alike. This file is CommonJS itself, so require() takes the "exports"
// "require" entry (dist/cjs) and import() the "import" entry (dist/esm): both are compiled from one source and must
// offer the same API, each with its type declarations. It runs on the build, not on the sources.
"use strict";

const assert = require("node:assert/strict");
const { existsSync, readFileSync } = require("node:fs");
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");
const { describe, it } = require("node:test");

const root = join(__dirname, "..", "..");
const entry = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).exports["."];

// What a worker needs from the package; a smaller surface would break README's examples.
const MAIN = [
  "BatonWorker", "success", "failed", "outcomeToJson", "outcomeFromJson", "InMemoryIdempotencyStore", "noIdempotency",
  "UnprocessableMessageError", "PayloadTooLargeError", "HandlerTimeoutError", "InvalidSettingsError", "readSettings",
  "readCredentials", "Variables", "Staircase", "names", "Headers", "parseDuration", "PostgresIdempotencyStore",
];

describe("the built package", () => {
  it("is required as CommonJS from dist/cjs, through its exports", () => {
    assert.equal(require.resolve("@baton/worker"), join(root, entry.require.default));
    assert.match(entry.require.default, /^\.\/dist\/cjs\//);
    const cjs = require("@baton/worker");
    for (const name of MAIN) {
      assert.notEqual(cjs[name], undefined, `require("@baton/worker").${name}`);
    }
    assert.equal(typeof cjs.BatonWorker.fromEnvironment, "function");
    assert.equal(cjs.parseDuration("90s"), 90_000);
  });

  it("is imported as an ES module from dist/esm, through its exports", async () => {
    assert.match(entry.import.default, /^\.\/dist\/esm\//);
    const esm = await import("@baton/worker");
    // The same module record as the file the entry names: import() went through "exports" "import".
    assert.equal(esm, await import(pathToFileURL(join(root, entry.import.default)).href));
    for (const name of MAIN) {
      assert.notEqual(esm[name], undefined, `import("@baton/worker").${name}`);
    }
  });

  it("offers the same names to require() as to import", async () => {
    const cjs = require("@baton/worker");
    const esm = await import("@baton/worker");
    assert.deepEqual(Object.keys(cjs).sort(), Object.keys(esm).sort());
    assert.deepEqual(cjs.success({ paymentId: "p-1" }), esm.success({ paymentId: "p-1" }));
  });

  it("declares its types for both module systems", () => {
    for (const [condition, target] of Object.entries(entry)) {
      assert.equal(typeof target.types, "string", `exports "${condition}" has "types"`);
      assert.ok(existsSync(join(root, target.types)), `${target.types} was built`);
    }
    assert.match(entry.require.types, /^\.\/dist\/cjs\/.*\.d\.ts$/);
    assert.match(entry.import.types, /^\.\/dist\/esm\/.*\.d\.ts$/);
  });
});
