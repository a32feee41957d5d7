/**
 * Durations as Baton writes them (`30s`, `2m`, `1500ms`, `1m30s`), and their normalised form used in queue names:
 * the largest of h, m, s, ms that divides the value, so `120s` and `2m` name the same retry tier.
 */

const WHOLE = /^([0-9]{1,9}(ms|s|m|h))+$/;
const PART = /([0-9]+)(ms|s|m|h)/g;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a duration; throws a message a person can act on when the text is not one. */
export function parseDuration(text: string): number {
  if (!WHOLE.test(text)) {
    throw new Error(`'${text}' is not a duration: write a whole number and a unit (ms, s, m or h), e.g. 500ms, 30s, 2m`);
  }
  let total = 0;
  for (const [, n, unit] of text.matchAll(PART)) {
    total += Number(n) * (UNIT_MS[unit as string] as number);
  }
  if (total === 0) {
    throw new Error(`'${text}' is zero: a duration must be greater than zero`);
  }
  return total;
}

/** The normalised name of a duration in milliseconds, e.g. 120000 → `2m`, 1500 → `1500ms`. */
export function formatDuration(millis: number): string {
  for (const unit of ["h", "m", "s"] as const) {
    const size = UNIT_MS[unit] as number;
    if (millis % size === 0) {
      return `${millis / size}${unit}`;
    }
  }
  return `${millis}ms`;
}
