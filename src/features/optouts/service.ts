import type { Executor } from '../../db/engine.js';
import { badRequest } from '../../http/errors.js';
import { formatLocal } from '../../lib/time.js';
import { addOptouts, listOwner, MAX_CONFIRMATION, optoutSettings, removeOptouts } from '../../messaging/optouts.js';

export { MAX_CONFIRMATION, optoutSettings };
import { MAX_NUMBERS, PAGE_SIZE } from './schemas.js';
import type { OptoutSource } from './tables.js';

export { MAX_NUMBERS, PAGE_SIZE };

export interface OptoutEntry {
  number: string;
  source: OptoutSource;
  created_at: string;
}

/**
 * The full numbers written in `raw` (comma-separated): 10 digits take
 * `countryCode`; `+` and 11 to 15 digits is a full number. Spaces, dashes,
 * dots and parentheses are ignored. One malformed number refuses them all
 * (optout_05, with the number); repeats count once.
 */
export function parseNumbers(raw: string, countryCode = '52'): string[] {
  const parts = raw.split(',').filter((p) => p.trim() !== '');
  if (parts.length === 0) throw badRequest('optout_04');
  if (parts.length > MAX_NUMBERS) throw badRequest('optout_07');
  const numbers = new Set<string>();
  for (const part of parts) {
    const full = fullNumber(part, countryCode);
    if (!full) throw badRequest('optout_05', undefined, { number: part.trim().slice(0, 20) });
    numbers.add(full);
  }
  return [...numbers];
}

/** One written number as stored (country code and digits), or null when it is malformed (see parseNumbers). */
export function fullNumber(written: string, countryCode = '52'): string | null {
  const digits = written.replace(/[\s().-]/g, '');
  if (/^\d{10}$/.test(digits)) return countryCode.replace(/^\+/, '') + digits;
  return /^\+\d{11,15}$/.test(digits) ? digits.slice(1) : null;
}

/** One page (from 1) of the list the account shares with its family, oldest first; [] past the last. */
export async function optoutPage(db: Executor, accountId: number, page: number): Promise<OptoutEntry[]> {
  const owner = await listOwner(db, accountId);
  const rows = await db
    .selectFrom('optouts')
    .select(['number', 'source', 'created_at'])
    .where('account_id', '=', owner)
    .orderBy('id')
    .limit(PAGE_SIZE)
    .offset((page - 1) * PAGE_SIZE)
    .execute();
  return rows.map((r) => ({ number: r.number, source: r.source, created_at: formatLocal(Number(r.created_at)) }));
}

/** Puts the numbers on the family's list; returns how many were not on it. */
export async function optOut(db: Executor, accountId: number, numbers: string[], source: OptoutSource) {
  return (await addOptouts(db, await listOwner(db, accountId), numbers, source, Date.now())).length;
}

/** Takes the numbers off the family's list; returns how many were on it. */
export async function optIn(db: Executor, accountId: number, numbers: string[]) {
  return removeOptouts(db, await listOwner(db, accountId), numbers);
}

/**
 * Changes a family's opt-out choices (they belong to the top-level account:
 * the list is the family's). `confirmation` null sends nothing back.
 */
export async function setOptoutSettings(
  db: Executor,
  accountId: number,
  changes: { exemptOtp?: boolean; confirmation?: string | null },
): Promise<void> {
  const owner = await listOwner(db, accountId);
  const set = {
    ...(changes.exemptOtp !== undefined ? { exempt_otp: changes.exemptOtp ? 1 : 0 } : {}),
    ...(changes.confirmation !== undefined ? { confirmation: changes.confirmation } : {}),
  };
  if (Object.keys(set).length === 0) return;
  await db
    .insertInto('optout_settings')
    .values({ account_id: owner, exempt_otp: 0, confirmation: null, ...set })
    .onConflict((oc) => oc.column('account_id').doUpdateSet(set))
    .execute();
}
