/** Header names of the message contract and how their values are read, whichever client wrote them. */

import { UnprocessableMessageError } from "./errors.js";

export const Headers = {
  WORKFLOW: "baton-workflow",
  NAMESPACE: "baton-namespace",
  REVISION: "baton-revision",
  INSTANCE: "baton-instance",
  STEP: "baton-step",
  ATTEMPT: "baton-attempt",
  ENTITY: "baton-entity",
  ACTION: "baton-action",
  RETRIES: "baton-retries",
  STEP_TIMEOUT: "baton-step-timeout",
  DEADLINE: "baton-deadline",
  TRACEPARENT: "traceparent",
  TRACESTATE: "tracestate",
  EXCEPTION_MESSAGE: "x-exception-message",
  EXCEPTION_TYPE: "x-exception-type",
  ORIGINAL_ROUTING_KEY: "x-original-routing-key",
  ORIGINAL_EXCHANGE: "x-original-exchange",
} as const;

/** Every header a worker copies from a command onto its events starts with it. */
export const BATON_PREFIX = "baton-";
export const CONTENT_TYPE_JSON = "application/json";

export type HeaderTable = Record<string, unknown>;

/** A header's value as text, or undefined when absent or blank (strings may arrive as Buffers). */
export function headerText(headers: HeaderTable | undefined, name: string): string | undefined {
  const v = headers?.[name];
  if (v === undefined || v === null) {
    return undefined;
  }
  const s = Buffer.isBuffer(v) ? v.toString("utf8") : String(v);
  return s.trim() === "" ? undefined : s;
}

/**
 * A whole number from a header another language may have written as an int, a long or its decimal text; undefined
 * when absent, null when present but not a whole number.
 */
export function headerWholeNumber(headers: HeaderTable | undefined, name: string): number | undefined | null {
  const v = headers?.[name];
  if (v === undefined || v === null) {
    return undefined;
  }
  if (typeof v === "bigint") {
    return Number(v);
  }
  if (typeof v === "number") {
    return Number.isInteger(v) ? v : null;
  }
  const text = headerText(headers, name);
  if (text === undefined) {
    return undefined;
  }
  return /^\s*-?[0-9]+\s*$/.test(text) ? Number(text.trim()) : null;
}

/** `baton-retries`, 0 when absent; a value that is not a whole number makes the message unprocessable. */
export function retriesHeader(headers: HeaderTable | undefined): number {
  const n = headerWholeNumber(headers, Headers.RETRIES);
  if (n === null) {
    throw new UnprocessableMessageError(`header ${Headers.RETRIES} is not a whole number`);
  }
  return n === undefined ? 0 : Math.max(0, n);
}

/**
 * `baton-deadline` in epoch milliseconds, or undefined when absent or not a whole number after 1970: an unreadable
 * deadline counts as none, never as a reason to refuse or expire a command.
 */
export function deadlineHeader(headers: HeaderTable | undefined): number | undefined {
  const n = headerWholeNumber(headers, Headers.DEADLINE);
  return n === null || n === undefined || n <= 0 ? undefined : n;
}

/** Whether a declared content type allows a JSON body: none, `application/json` or a `+json` type. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType.trim() === "") {
    return true;
  }
  const type = (contentType.split(";", 1)[0] as string).trim().toLowerCase();
  return type === CONTENT_TYPE_JSON || (type.startsWith("application/") && type.endsWith("+json"));
}

/** The headers an event copies from its command: every `baton-*` one, and the trace context. */
export function copiedHeaders(headers: HeaderTable | undefined): HeaderTable {
  const copy: HeaderTable = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.startsWith(BATON_PREFIX) || name === Headers.TRACEPARENT || name === Headers.TRACESTATE) {
      copy[name] = value;
    }
  }
  return copy;
}
