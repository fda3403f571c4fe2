import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';
import type { LedgerKind } from './ledger-tables.js';

export type { LedgerKind } from './ledger-tables.js';

/** What a movement of a balance is, as its ledger entry keeps it. */
export interface Movement {
  kind: LedgerKind;
  actor: string;
  reason?: string | null;
  reference?: string | null;
}

/** Conditions a movement also needs: an addition never past `maxUnits`; only on an active sub-account of `subaccountOf`. */
export interface MoveLimits {
  maxUnits?: number;
  subaccountOf?: number;
}

/**
 * The low-balance flag after adding `units` (in the same SET): cleared when
 * the new balance is strictly above the threshold, so the next crossing is
 * reported again (src/webhooks/low-balance.ts); kept otherwise.
 */
export const rearmed = (units: number) =>
  sql<number>`case when credits + ${units} > low_balance_units then 0 else low_balance_sent end`;

/** One entry as it is appended: its movement, the account, the signed units and the balance they left. */
export interface LedgerEntry extends Movement {
  accountId: number;
  units: number;
  balanceAfter: number;
}

/** Appends entries in one INSERT (the caller's transaction: the one that moved the balances). */
export async function appendLedger(db: Executor, entries: readonly LedgerEntry[], at = Date.now()): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('credit_ledger')
    .values(
      entries.map((e) => ({
        account_id: e.accountId,
        at,
        kind: e.kind,
        amount: e.units,
        balance_after: e.balanceAfter,
        reason: e.reason ?? null,
        actor: e.actor,
        reference: e.reference ?? null,
      })),
    )
    .execute();
}

/**
 * Every change of a balance but a send's debit (accounts' debitCredits, which appends its own entries): adds `units`
 * (negative: takes them) and appends its ledger entry, in the caller's transaction. The update is conditional: a
 * balance never goes below zero, nor past `maxUnits` by an addition. Returns the new balance, or undefined (nothing
 * changed) when refused. Zero units change nothing and append nothing.
 */
export async function moveCredits(
  db: Executor,
  accountId: number,
  units: number,
  movement: Movement,
  limits: MoveLimits = {},
): Promise<number | undefined> {
  let update = db
    .updateTable('accounts')
    .set({ credits: sql`credits + ${units}`, low_balance_sent: rearmed(units) })
    .where('id', '=', accountId)
    .where(sql<boolean>`credits + ${units} >= 0`);
  // The ceiling holds only what is added: a withdrawal from a balance above it (set before it existed) goes through.
  if (limits.maxUnits !== undefined && units > 0)
    update = update.where(sql<boolean>`credits + ${units} <= ${limits.maxUnits}`);
  if (limits.subaccountOf !== undefined)
    update = update.where('parent_id', '=', limits.subaccountOf).where('status', '=', 'active');
  const row = await update.returning('credits').executeTakeFirst();
  if (!row) return undefined;
  const balanceAfter = Number(row.credits);
  if (units !== 0) await appendLedger(db, [{ ...movement, accountId, units, balanceAfter }]);
  return balanceAfter;
}

/** The longest reason a ledger entry keeps (the operator API's rule too). */
export const MAX_REASON = 500;

/** Why a reason as typed cannot be kept (`too_long`; `unshowable`: a control or invisible formatting character), or undefined. */
export function reasonProblem(reason: string): 'too_long' | 'unshowable' | undefined {
  if (reason.length > MAX_REASON) return 'too_long';
  // Controls (NUL, ESC, newlines) and invisible formatting (U+202E reorders a line) would forge or hide a statement line.
  return /[\p{Cc}\p{Cf}]/u.test(reason) ? 'unshowable' : undefined;
}
