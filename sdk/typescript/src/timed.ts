/**
 * Runs a handler within its time limit (docs/message-contract.md#deadline-and-time-limits). At the limit its
 * AbortSignal is aborted, and nothing else: JavaScript cannot stop a promise, so the delivery stays unacked and its
 * message id claimed until the handler really ends, and the same command never runs twice. A handler still running
 * at twice its limit is reported stuck, again each time its running time doubles.
 */

export interface TimedResult<T> {
  readonly value?: T;
  readonly error?: unknown;
  readonly failed: boolean;
  /** Whether the limit passed before the handler ended. */
  readonly overran: boolean;
  readonly durationMs: number;
}

/** At most `size` handlers at once, over all queues; further ones wait their turn (their limit counts from their start). */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async acquire(): Promise<() => void> {
    if (this.free > 0) {
      this.free--;
    } else {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    let released = false;
    return () => {
      if (released) {
        return;
      }
      released = true;
      const next = this.waiting.shift();
      if (next) {
        next();
      } else {
        this.free++;
      }
    };
  }
}

export async function runTimed<T>(
  limitMs: number,
  run: (signal: AbortSignal) => Promise<T> | T,
  onStuck: (runningMs: number) => void,
): Promise<TimedResult<T>> {
  const controller = new AbortController();
  const started = Date.now();
  let overran = false;
  let stuckAfter = 2 * limitMs;
  let timer: NodeJS.Timeout | undefined;
  const arm = (afterMs: number, fire: () => void): void => {
    timer = setTimeout(fire, Math.min(afterMs, 2_147_483_647));
  };
  const stuck = (): void => {
    onStuck(Date.now() - started);
    const next = stuckAfter;
    stuckAfter *= 2;
    arm(next, stuck);
  };
  arm(limitMs, () => {
    overran = true;
    controller.abort(new Error(`the handler's time limit of ${limitMs} ms passed`));
    arm(limitMs, stuck);
  });
  try {
    const value = await run(controller.signal);
    return { value, failed: false, overran, durationMs: Date.now() - started };
  } catch (error) {
    return { error, failed: true, overran, durationMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}
