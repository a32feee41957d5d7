/**
 * A message that can never be handled (not JSON, no entity/action, input the handler's parser refuses): it is
 * parked at once, since every retry would fail the same way. A handler may throw it too.
 */
export class UnprocessableMessageError extends Error {
  override readonly name = "UnprocessableMessageError";
}

/** A result event over `maxResultBytes`: parked at once with `x-exception-type: PayloadTooLarge`. */
export class PayloadTooLargeError extends Error {
  static readonly CODE = "PayloadTooLarge";
  override readonly name = "PayloadTooLargeError";

  constructor(what: string, size: number, limit: number) {
    super(`the result event of ${what} is ${size} bytes, over the limit of ${limit} (maxResultBytes)`);
  }
}

/** A handler that failed after its time limit had passed; `cause` is what it threw. */
export class HandlerTimeoutError extends Error {
  override readonly name = "HandlerTimeoutError";

  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
}

/** The settings from the environment are missing or malformed; `problems` names every one. */
export class InvalidSettingsError extends Error {
  override readonly name = "InvalidSettingsError";

  constructor(readonly problems: readonly string[]) {
    super(`invalid worker settings:\n  ${problems.join("\n  ")}`);
  }
}

/** The type a dead letter's `x-exception-type` and an `error` event's `errorCode` carry. */
export function exceptionType(failure: unknown): string {
  if (failure instanceof PayloadTooLargeError) {
    return PayloadTooLargeError.CODE;
  }
  if (failure instanceof Error) {
    return failure.name || failure.constructor.name || "Error";
  }
  return typeof failure;
}

/** Long messages are cut: headers travel in one frame and the parking lot is not a log store. */
export const MAX_EXCEPTION_MESSAGE_LENGTH = 1_000;

export function exceptionMessage(failure: unknown): string {
  let m = failure instanceof Error ? failure.message : String(failure);
  if (!m || m.trim() === "") {
    m = exceptionType(failure);
  }
  return m.length <= MAX_EXCEPTION_MESSAGE_LENGTH ? m : `${m.substring(0, MAX_EXCEPTION_MESSAGE_LENGTH)}…`;
}
