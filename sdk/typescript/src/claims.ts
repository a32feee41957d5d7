/**
 * The message ids whose handler is running. A copy of a message (a redelivery after a connection drop, a re-send)
 * that arrives meanwhile waits for the claim to be released, then finds the outcome in the store instead of
 * running the handler a second time; a claim is held until the handler has really ended, past its limit too.
 */
export class Claims {
  private readonly held = new Map<string, Promise<void>>();

  /** A release function, or undefined when `key` is claimed already (then wait for {@link released}). */
  tryClaim(key: string | undefined): (() => void) | undefined {
    if (key === undefined) {
      return () => undefined;
    }
    if (this.held.has(key)) {
      return undefined;
    }
    let release!: () => void;
    this.held.set(key, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.held.delete(key);
      release();
    };
  }

  /** Resolves when `key` is released (at once when it is not claimed). */
  released(key: string | undefined): Promise<void> {
    return (key === undefined ? undefined : this.held.get(key)) ?? Promise.resolve();
  }

  get size(): number {
    return this.held.size;
  }
}
