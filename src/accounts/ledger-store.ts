import type { Executor } from '../db/engine.js';
import { formatLocalDate, parseLocal } from '../lib/time.js';
import { toCredits } from './credits.js';
import type { LedgerKind } from './ledger-tables.js';

/** Entries in one page of an account's ledger. */
export const LEDGER_PAGE_SIZE = 100;

/** One entry as the CLI and the operator API answer it: credits, not units. */
export interface LedgerEntryView {
  at: string;
  kind: LedgerKind;
  amount: number;
  balance_after: number;
  reason: string | null;
  actor: string;
  reference: string | null;
}

export interface LedgerPage {
  entries: LedgerEntryView[];
  page: number;
  has_more: boolean;
}

/** The entries of an account from `from` (ms, included) to `to` (ms, excluded), newest first, one page (from 1). */
export async function ledgerPage(
  db: Executor,
  accountId: number,
  q: { from?: number; to?: number; page: number },
): Promise<LedgerPage> {
  let query = db
    .selectFrom('credit_ledger')
    .select(['at', 'kind', 'amount', 'balance_after', 'reason', 'actor', 'reference'])
    .where('account_id', '=', accountId);
  if (q.from !== undefined) query = query.where('at', '>=', q.from);
  if (q.to !== undefined) query = query.where('at', '<', q.to);
  // Ids follow the order of the movements of one account: each holds the account's row lock until it commits.
  const rows = await query
    .orderBy('id', 'desc')
    .limit(LEDGER_PAGE_SIZE + 1)
    .offset((q.page - 1) * LEDGER_PAGE_SIZE)
    .execute();
  return {
    entries: rows.slice(0, LEDGER_PAGE_SIZE).map((r) => ({
      at: new Date(Number(r.at)).toISOString(),
      kind: r.kind,
      amount: toCredits(Number(r.amount)),
      balance_after: toCredits(Number(r.balance_after)),
      reason: r.reason,
      actor: r.actor,
      reference: r.reference,
    })),
    page: q.page,
    has_more: rows.length > LEDGER_PAGE_SIZE,
  };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A period of Mexico City days as the operator API takes it (`from` and `to`, YYYY-MM-DD, both included, either
 * absent): its bounds in ms, or undefined when a date is not a real one or `to` comes before `from`.
 */
export function ledgerPeriod(from?: string, to?: string): { from?: number; to?: number } | undefined {
  const start = from === undefined ? undefined : DATE.test(from) ? parseLocal(from) : null;
  const last = to === undefined ? undefined : DATE.test(to) ? parseLocal(to) : null;
  if (start === null || last === null) return undefined;
  // The end is the next day's midnight, read as Mexico City time too (a day is not always 24 hours).
  const end = last === undefined ? undefined : parseLocal(formatLocalDate(last + 36 * 3_600_000));
  if (end === null || (start !== undefined && end !== undefined && end <= start)) return undefined;
  return { from: start, to: end };
}
