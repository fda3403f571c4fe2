import type { WithDb } from '../../context.js';
import { optoutExportPage } from './store.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { writeInChunks } from '../../db/chunked-write.js';
import type { Executor } from '../../db/engine.js';
import type { Database } from '../../db/schema.js';
import { badRequest } from '../../http/errors.js';
import { formatLocal } from '../../lib/time.js';
import {
  addOptouts,
  listedAmong,
  listOwner,
  listSize,
  MAX_CONFIRMATION,
  optoutSettings,
  removeOptouts,
} from '../../messaging/optouts.js';

export { MAX_CONFIRMATION, optoutSettings };
import { cleanNumber, hasNationalLength, TEN_DIGIT_CODES } from '../../phone/numbers.js';
import { MAX_NUMBERS, PAGE_SIZE } from './schemas.js';
import type { OptoutSource } from '../../messaging/optout-tables.js';

export { MAX_NUMBERS, PAGE_SIZE };

/** Numbers an import writes per transaction: another tenant's write waits for one of them at most. */
export const IMPORT_CHUNK = 1_000;

export interface OptoutEntry {
  number: string;
  source: OptoutSource;
  created_at: string;
}

/**
 * The full numbers written in `raw` (comma-separated): 10 digits (or a
 * national number of the length of `countryCode`'s country, when that is not
 * 52, 1 or 57) take `countryCode`; `+` and 11 to 15 digits is a full number. Spaces, dashes,
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
  const digits = cleanNumber(written);
  const cc = countryCode.replace(/^\+/, '');
  if (/^\d{10}$/.test(digits)) return cc + digits;
  // A country whose numbers are not 10 digits (34: 612345678): its own length (the send path's rule).
  if (!TEN_DIGIT_CODES.has(cc) && hasNationalLength(cc, digits)) return cc + digits;
  return /^\+\d{11,15}$/.test(digits) ? digits.slice(1) : null;
}

/**
 * One page of the list the account shares with its family, oldest first; []
 * past the last. `page` (from 1) counts entries on the index of the list's
 * order, and a page past the last one the list may hold (`limit`) is [] at
 * once. `after` (the number of the last entry of the previous page) starts
 * right after that entry, however deep: null when it is not on the list.
 */
export async function optoutPage(
  db: Executor,
  accountId: number,
  at: { page: number; after?: string },
  limit: number,
): Promise<OptoutEntry[] | null> {
  if (at.after === undefined && (at.page - 1) * PAGE_SIZE >= limit) return [];
  const owner = await listOwner(db, accountId);
  const inList = db.selectFrom('optouts').where('account_id', '=', owner);
  const start =
    at.after === undefined
      ? inList
          .select('id')
          .orderBy('id')
          .offset((at.page - 1) * PAGE_SIZE)
          .limit(1)
      : inList.select('id').where('number', '=', at.after);
  const first = await start.executeTakeFirst();
  if (!first) return at.after === undefined ? [] : null;
  const rows = await inList
    .select(['number', 'source', 'created_at'])
    .where('id', at.after === undefined ? '>=' : '>', first.id)
    .orderBy('id')
    .limit(PAGE_SIZE)
    .execute();
  return rows.map((r) => ({ number: r.number, source: r.source, created_at: formatLocal(Number(r.created_at)) }));
}

/** Whether the numbers not yet on the account's family's list fit under `limit` entries. */
export async function fitsOnList(db: Executor, accountId: number, numbers: string[], limit: number): Promise<boolean> {
  const owner = await listOwner(db, accountId);
  const listed = await listSize(db, owner);
  if (listed + numbers.length <= limit) return true;
  return listed + numbers.length - (await listedAmong(db, owner, numbers, nextTurn)) <= limit;
}

/**
 * Puts many numbers on the family's list in transactions of IMPORT_CHUNK
 * numbers, giving the event loop a turn between them, so another tenant's
 * send never waits for the whole import. `written(n)` follows each commit.
 * Returns how many were not on the list.
 */
export async function importOptouts(
  db: Kysely<Database>,
  accountId: number,
  numbers: string[],
  written: (count: number) => void,
): Promise<number> {
  const owner = await listOwner(db, accountId);
  const add = async (trx: Executor, chunk: string[]) =>
    (await addOptouts(trx, owner, chunk, 'panel', Date.now())).length;
  return writeInChunks(db, numbers, IMPORT_CHUNK, add, written);
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

// Given the context (the panel's Opt-outs page).

/** The account whose list the family shares (the top-level account). */
export const listOwnerOf = (ctx: WithDb, accountId: number) => listOwner(ctx.db.kysely, accountId);

/** How many numbers the family's list holds. */
export const listedCount = async (ctx: WithDb, accountId: number) =>
  listSize(ctx.db.kysely, await listOwner(ctx.db.kysely, accountId));

export const optoutPageOf = (ctx: WithDb, accountId: number, at: { page: number; after?: string }, limit: number) =>
  optoutPage(ctx.db.kysely, accountId, at, limit);

export const optOutNumbers = (ctx: WithDb, accountId: number, numbers: string[], source: OptoutSource) =>
  optOut(ctx.db.kysely, accountId, numbers, source);

export const optInNumbers = (ctx: WithDb, accountId: number, numbers: string[]) =>
  optIn(ctx.db.kysely, accountId, numbers);

export const fitsOnListOf = (ctx: WithDb, accountId: number, numbers: string[], limit: number) =>
  fitsOnList(ctx.db.kysely, accountId, numbers, limit);

export const importOptoutsOf = (ctx: WithDb, accountId: number, numbers: string[], written: (count: number) => void) =>
  importOptouts(ctx.db.kysely, accountId, numbers, written);

export const optoutExportPageOf = (ctx: WithDb, owner: number, after: number, limit: number) =>
  optoutExportPage(ctx.db.kysely, owner, after, limit);
