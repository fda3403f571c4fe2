/**
 * Credits are stored as integer units so that fractional prices (an RCS
 * message at 1.5 credits, say) add up exactly: 1 credit = 10,000 units.
 */
export const CREDIT_UNITS = 10_000;

export const toUnits = (credits: number): number => Math.round(credits * CREDIT_UNITS);

export const toCredits = (units: number): number => units / CREDIT_UNITS;
