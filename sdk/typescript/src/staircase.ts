/**
 * How a consumer retries a technical failure (docs/message-contract.md#technical-failures-the-staircase):
 * `maxAttempts` counts every delivery, the first included; retry k (1-based) waits `delays[k-1]`, the last delay
 * repeating; after `maxAttempts` deliveries the message is parked.
 */
export class Staircase {
  static readonly NONE = new Staircase(1, []);

  constructor(
    readonly maxAttempts: number,
    readonly delaysMs: readonly number[],
  ) {
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new Error(`maxAttempts must be at least 1, got ${maxAttempts}`);
    }
    if (maxAttempts > 1 && delaysMs.length === 0) {
      throw new Error(`maxAttempts is ${maxAttempts} but no delays are given: list at least one delay, e.g. 30s`);
    }
  }

  /** Whether a delivery that failed after `retriesSoFar` retries may be retried; when false it is parked. */
  mayRetryAfter(retriesSoFar: number): boolean {
    return retriesSoFar + 1 < this.maxAttempts;
  }

  /** The delay before retry `retry` (1 for the first): `delays[min(retry, n) - 1]`. */
  delayBeforeRetry(retry: number): number {
    if (retry < 1 || retry > this.maxAttempts - 1) {
      throw new Error(`retry ${retry} is outside 1..${this.maxAttempts - 1}`);
    }
    return this.delaysMs[Math.min(retry, this.delaysMs.length) - 1] as number;
  }
}
