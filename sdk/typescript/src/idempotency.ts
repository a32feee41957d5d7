/**
 * Remembers outcomes by key (a command's `message_id`, or `<subscription>:<message_id>`), so that a duplicate is
 * answered with the remembered outcome instead of running its handler again (docs/message-contract.md#duplicates).
 * Technical failures are never remembered: they are retried, and a replayed dead letter must run again.
 */

import type { AnyOutcome } from "./outcome.js";

export interface IdempotencyStore {
  /** The outcome remembered for `key`; a store that fails here counts as a technical failure (retried). */
  find(key: string): Promise<AnyOutcome | undefined>;
  /** Remembers `outcome` for `key`; a failure here is logged, and the result published anyway. */
  remember(key: string, outcome: AnyOutcome): Promise<void>;
}

/**
 * The default: the last `capacity` outcomes in memory, oldest forgotten first. Covers redeliveries while the
 * process lives; for duplicates across restarts keep outcomes with the effect, e.g. {@link PostgresIdempotencyStore}.
 */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  private readonly outcomes = new Map<string, AnyOutcome>();

  constructor(private readonly capacity = 10_000) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new Error(`capacity must be at least 1, got ${capacity}`);
    }
  }

  async find(key: string): Promise<AnyOutcome | undefined> {
    return this.outcomes.get(key);
  }

  async remember(key: string, outcome: AnyOutcome): Promise<void> {
    this.outcomes.delete(key);
    this.outcomes.set(key, outcome);
    if (this.outcomes.size > this.capacity) {
      this.outcomes.delete(this.outcomes.keys().next().value as string);
    }
  }

  get size(): number {
    return this.outcomes.size;
  }
}

/** Remembers nothing: every delivery runs its handler. */
export const noIdempotency: IdempotencyStore = {
  find: async () => undefined,
  remember: async () => undefined,
};
