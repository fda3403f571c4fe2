/**
 * Money as integers, never floats: amounts the operator gives (carrier costs,
 * the value of a credit) are ten-thousandths of the currency; a revenue is
 * credit units × ten-thousandths (1e-8 of the currency), summed as bigint.
 */
export const MONEY_SCALE = 10_000;

const DECIMAL = /^(\d{1,9})(?:\.(\d{1,4}))?$/;

/** "0.0123" → 123; null when it is not a non-negative decimal with at most 4 decimals (and under a billion). */
export function parseMoney(text: string): number | null {
  const m = DECIMAL.exec(String(text).trim());
  if (!m) return null;
  return Number(m[1]) * MONEY_SCALE + Number((m[2] ?? '').padEnd(4, '0'));
}

/** 123 → "0.0123": ten-thousandths with their 4 decimals. */
export function formatMoney(tenThousandths: number): string {
  const n = BigInt(tenThousandths);
  const sign = n < 0n ? '-' : '';
  const abs = n < 0n ? -n : n;
  return `${sign}${abs / 10_000n}.${String(abs % 10_000n).padStart(4, '0')}`;
}

/** An amount in `scale` parts of the currency → "12.35" (half away from zero). */
export function formatCents(amount: bigint, scale: bigint): string {
  const sign = amount < 0n ? '-' : '';
  const abs = amount < 0n ? -amount : amount;
  const cents = (abs * 100n + scale / 2n) / scale;
  return `${sign}${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
}
