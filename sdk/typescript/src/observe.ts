/** What the worker tells the outside: log lines, and hooks for metrics. */

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** One line per message on stderr, with the level; bodies, URIs and passwords never reach it. */
export const consoleLogger: Logger = {
  debug: () => undefined,
  info: (m) => console.error(`INFO  ${m}`),
  warn: (m) => console.error(`WARN  ${m}`),
  error: (m) => console.error(`ERROR ${m}`),
};

/** Hooks for metrics; every one is optional, and one that throws is logged and ignored. */
export interface WorkerListener {
  /** A handler ended with an outcome (`success`, `failed`). */
  handled?(consumer: string, result: string, durationMs: number): void;
  /** A failure climbed a step of the staircase. */
  retried?(consumer: string, retry: number, delayMs: number, failure: unknown): void;
  /** A message was parked in `q.dlx.S.N`. */
  deadLettered?(consumer: string, exceptionType: string, reason: string): void;
  /** A duplicate was answered from the idempotency store. */
  duplicate?(consumer: string, key: string): void;
  /** A command came after its deadline and was answered `expired`. */
  expired?(consumer: string, messageId: string | undefined, lateMs: number): void;
  /** A handler is still running at twice its limit (and again at each doubling). */
  stuck?(consumer: string, messageId: string | undefined, runningMs: number): void;
}

/** Calls a hook, so that a failing metric never fails a delivery. */
export function notify<K extends keyof WorkerListener>(
  listener: WorkerListener,
  logger: Logger,
  hook: K,
  ...args: Parameters<NonNullable<WorkerListener[K]>>
): void {
  try {
    (listener[hook] as ((...a: unknown[]) => void) | undefined)?.(...args);
  } catch (e) {
    logger.warn(`listener ${hook} failed: ${(e as Error).message}`);
  }
}
