/**
 * When deliveries are retried and endpoints given up on (docs/webhooks.md "Retries" and
 * "Disabling an endpoint that keeps failing"). Pure arithmetic; the decisions that need the
 * database's clock are made in SQL with these numbers.
 */

/** The retry schedule's settings. */
export interface BackoffSettings {
  baseMs: number;
  maxMs: number;
}

/** Jitter: every wait is multiplied by a factor in [1 − JITTER, 1 + JITTER). */
export const JITTER = 0.25;

/**
 * How long to wait before retry number `retry` (1 for the first retry): `base × 2^(retry−1)`,
 * capped at `max`, times a random factor between 0.75 and 1.25. `random` is for tests.
 */
export function retryDelayMs(
  retry: number,
  settings: BackoffSettings,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(retry - 1, 0), 52);
  const wait = Math.min(settings.baseMs * 2 ** exponent, settings.maxMs);
  return Math.round(wait * (1 - JITTER + 2 * JITTER * random()));
}

/** A length of time in words, for messages: "3 days", "90 minutes", "45 seconds". */
export function describeDuration(seconds: number): string {
  const units: Array<[number, string]> = [
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const count = seconds / size;
      return `${count} ${name}${count === 1 ? "" : "s"}`;
    }
  }
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
