/** How long a handler may run, and whether a command may start at all (docs/message-contract.md#deadline-and-time-limits). */

import { deadlineHeader, headerWholeNumber, Headers, type HeaderTable } from "./headers.js";

/** Used when nothing else is configured: ten minutes. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 10 * 60_000;
/** 16 MiB: RabbitMQ 4's default `max_message_size`. */
export const DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024;

/** By how many ms the command's deadline had passed at `now`; undefined when it has none or it is still ahead. */
export function expiredBy(headers: HeaderTable | undefined, now: number): number | undefined {
  const deadline = deadlineHeader(headers);
  return deadline !== undefined && now >= deadline ? now - deadline : undefined;
}

/**
 * The time limit of a command's handler starting at `now`: the smallest of the worker's own, the step's timeout
 * (`baton-step-timeout`) and the time left until the deadline; at least 1 ms.
 */
export function commandLimit(headers: HeaderTable | undefined, handlerTimeoutMs: number, now: number): number {
  let limit = handlerTimeoutMs;
  const step = headerWholeNumber(headers, Headers.STEP_TIMEOUT);
  if (typeof step === "number" && step > 0) {
    limit = Math.min(limit, step);
  }
  const deadline = deadlineHeader(headers);
  if (deadline !== undefined) {
    limit = Math.min(limit, deadline - now);
  }
  return Math.max(1, limit);
}
