/**
 * What a command handler decided: `success(output)`, or `failed(code, reason)`, a business outcome the orchestrator
 * acts on without retrying. A technical failure is not an outcome: throw, and the SDK climbs the staircase.
 */

import type { EventResult } from "./names.js";

export interface Success<Out = unknown> {
  readonly result: "success";
  readonly output: Out;
}

export interface Failed {
  readonly result: "failed";
  readonly errorCode: string;
  readonly reason: string;
}

/** What the SDK itself answers with: `error` after the staircase, `expired` past the deadline. */
export interface SdkOutcome {
  readonly result: "error" | "expired";
  readonly errorCode?: string;
  readonly reason: string;
}

export type Outcome<Out = unknown> = Success<Out> | Failed;
export type AnyOutcome = Outcome | SdkOutcome;

/** Success; the output becomes the event's `output` (`{}` without one), handed to later steps. */
export function success<Out>(output: Out): Success<Out>;
export function success(): Success<Record<string, never>>;
export function success<Out>(output?: Out): Success<Out | Record<string, never>> {
  return { result: "success", output: output === undefined || output === null ? {} : output };
}

/** A business failure: published as a `failed` event, never retried. */
export function failed(errorCode: string, reason: string): Failed {
  if (typeof errorCode !== "string" || errorCode.trim() === "") {
    throw new Error("errorCode must not be blank");
  }
  return { result: "failed", errorCode, reason: reason ?? "" };
}

export function errorOutcome(errorCode: string, reason: string): SdkOutcome {
  return { result: "error", errorCode, reason };
}

export function expiredOutcome(reason: string): SdkOutcome {
  return { result: "expired", reason };
}

export function isOutcome(value: unknown): value is Outcome {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const v = value as { result?: unknown; errorCode?: unknown };
  return v.result === "success" || (v.result === "failed" && typeof v.errorCode === "string");
}

/**
 * `{"result":"success","output":…}` or `{"result":"failed","errorCode":…,"reason":…}`: the form the Java SDK
 * remembers too, so a store can be shared by workers in both languages.
 */
export function outcomeToJson(outcome: AnyOutcome): string {
  if (outcome.result === "success") {
    return JSON.stringify({ result: "success", output: outcome.output });
  }
  return JSON.stringify(
    outcome.errorCode === undefined
      ? { result: outcome.result, reason: outcome.reason }
      : { result: outcome.result, errorCode: outcome.errorCode, reason: outcome.reason },
  );
}

/** Reads what {@link outcomeToJson} wrote. */
export function outcomeFromJson(json: string): AnyOutcome {
  const node = JSON.parse(json) as { result?: EventResult; output?: unknown; errorCode?: string; reason?: string };
  switch (node.result) {
    case "success":
      return { result: "success", output: node.output ?? {} };
    case "failed":
      return { result: "failed", errorCode: node.errorCode ?? "", reason: node.reason ?? "" };
    case "error":
    case "expired":
      return node.errorCode === undefined
        ? { result: node.result, reason: node.reason ?? "" }
        : { result: node.result, errorCode: node.errorCode, reason: node.reason ?? "" };
    default:
      throw new Error("not a remembered outcome: no result success|failed|error|expired");
  }
}
