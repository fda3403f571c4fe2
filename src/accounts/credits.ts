/**
 * Credits are stored as integer units so that fractional prices (an RCS
 * message at 1.5 credits, say) add up exactly: 1 credit = 10,000 units.
 */
export const CREDIT_UNITS = 10_000;

/** The most credits an operator's change (API, CLI, panel) may take a balance to: a typo never mints billions. */
export const MAX_BALANCE_CREDITS = 100_000_000;

export const toUnits = (credits: number): number => Math.round(credits * CREDIT_UNITS);

export const toCredits = (units: number): number => units / CREDIT_UNITS;

/**
 * A low-balance threshold as typed (credits): its units, null for none
 * ('', off, none), undefined when it is not a positive amount of at most 4 decimals.
 */
export function thresholdUnits(text: string): number | null | undefined {
  const value = text.trim();
  if (value === '' || value === 'off' || value === 'none') return null;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 1_000_000_000 || toCredits(toUnits(n)) !== n) return undefined;
  return toUnits(n);
}
