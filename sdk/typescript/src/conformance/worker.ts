/**
 * The conformance worker of the TypeScript SDK (conformance/README.md): serves command `act` and subscription
 * `heard` with the SDK's public API only, as a user's worker would. Started by the suite as
 * `node sdk/typescript/dist/conformance/worker.js` with the operator's environment and the suite's variables.
 */

import { appendFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { BatonWorker, failed, success, type WorkerOptions } from "@baton/worker";

interface ActInput {
  case?: string;
  value?: unknown;
  ms?: number;
  bytes?: number;
}

const env = process.env;
const logFile = env["BATON_CONFORMANCE_LOG"];

/** One JSON line per handler start, written (and so flushed) at once. */
function logStart(kind: "command" | "event", messageId: string | undefined, testCase: string, retries: number): void {
  if (logFile) {
    appendFileSync(logFile, `${JSON.stringify({ kind, messageId: messageId ?? null, case: testCase, retries })}\n`);
  }
}

function numberOf(name: string): number | undefined {
  const v = env[name];
  return v === undefined || v.trim() === "" ? undefined : Number(v);
}

const options: WorkerOptions = {};
const timeout = numberOf("BATON_CONFORMANCE_HANDLER_TIMEOUT_MS");
const maxResult = numberOf("BATON_CONFORMANCE_MAX_RESULT_BYTES");
if (timeout !== undefined) options.handlerTimeoutMs = timeout;
if (maxResult !== undefined) options.maxResultBytes = maxResult;
if (env["BATON_CONFORMANCE_CONNECTION_NAME"]) options.connectionName = env["BATON_CONFORMANCE_CONNECTION_NAME"];

const worker = BatonWorker.fromEnvironment(options)
  .command<ActInput>("act", async (cmd) => {
    const c = cmd.input.case ?? "echo";
    logStart("command", cmd.messageId, c, cmd.retries);
    switch (c) {
      case "echo":
        return success({ echo: cmd.input.value });
      case "decline":
        return failed("DECLINED", "declined by the conformance worker");
      case "crash":
        throw new Error("boom");
      case "crash-once":
        if (cmd.retries === 0) throw new Error("boom");
        return success({ recovered: true });
      case "sleep":
        // Deliberately deaf to cmd.signal: the suite checks a handler past its limit never runs twice.
        await sleep(cmd.input.ms ?? 0);
        return success({ slept: cmd.input.ms ?? 0 });
      case "big":
        return success({ blob: "x".repeat(cmd.input.bytes ?? 0) });
      default:
        return failed("UNKNOWN_CASE", `no case '${c}' in the conformance worker`);
    }
  })
  .subscription<{ case?: string }>("heard", async (event) => {
    const c = event.body.case ?? "echo";
    logStart("event", event.messageId, c, event.retries);
    if (c === "crash") throw new Error("boom");
  })
  .stopOnSignals();

await worker.start();
process.stdout.write("READY\n");
