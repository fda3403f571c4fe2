import { z } from 'zod';
import { numeric } from '../../http/fields.js';

/** The largest single movement: 1,000,000.00 in cents. */
export const MAX_MOVEMENT_CENTS = 100_000_000;

/** Currency units with at most two decimals → integer cents; undefined when it has more decimals. */
export function toCents(amount: number): number | undefined {
  const cents = Math.round(amount * 100);
  return Math.abs(amount * 100 - cents) < 1e-6 ? cents : undefined;
}

export const fromCents = (cents: number): number => cents / 100;

/** An amount from 0.01 to 1,000,000.00 with at most two decimals, as integer cents. */
export const amountCents = (code: string) =>
  numeric(code, code).transform((amount, ctx) => {
    const cents = Number.isFinite(amount) ? toCents(amount) : undefined;
    if (cents === undefined || cents < 1 || cents > MAX_MOVEMENT_CENTS) {
      ctx.addIssue({ code: 'custom', message: code, input: amount });
      return z.NEVER;
    }
    return cents;
  });

/** The same, optional: absent, null and '' give undefined. */
export const optionalAmountCents = (code: string) =>
  z.preprocess((v) => (v === null || v === '' ? undefined : v), amountCents(code).optional());
