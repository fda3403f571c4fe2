/** Retries after the first attempt (spec: up to 25 per event); the event is failed after the last. */
export const MAX_RETRIES = 25;

/** The doubling stops at base × 512 (85 min with the default 10 s base). */
const CAP_FACTOR = 512;

/**
 * Delay before retry number `retry` (1-based): base × 2^(retry−1), capped at
 * base × 512, times a random factor in [0.8, 1.2). With the default 10 s base
 * the 25 retries span about 24 hours (8,703 × base in all, before jitter).
 */
export function retryDelayMs(retry: number, baseMs: number, random: () => number = Math.random): number {
  const factor = Math.min(2 ** (Math.max(retry, 1) - 1), CAP_FACTOR);
  return Math.round(baseMs * factor * (0.8 + random() * 0.4));
}

/** The whole schedule without jitter, in ms from the first attempt (docs/api/webhooks.md, tests). */
export function scheduleWithoutJitter(baseMs: number): number[] {
  let at = 0;
  return Array.from({ length: MAX_RETRIES }, (_, i) => (at += retryDelayMs(i + 1, baseMs, () => 0.5)));
}
