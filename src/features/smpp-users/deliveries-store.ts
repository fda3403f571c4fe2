import type { Selectable } from 'kysely';
import type { Db } from '../../db/engine.js';
import type { SmppDeliveriesTable } from './tables.js';

/** A receipt or reply waiting for a receiver bind, as the SMPP server's delivery pump takes it. */
export type WaitingDelivery = Selectable<SmppDeliveriesTable>;

/**
 * Claims up to `limit` due rows of an account for `holder` until `until`: those never claimed or whose claim lapsed.
 * Two statements (the ids, then the claim with the same condition), so two processes never claim one row at once.
 */
export async function claimDeliveries(
  db: Db,
  accountId: number,
  limit: number,
  holder: string,
  now: number,
  until: number,
): Promise<WaitingDelivery[]> {
  const free = (eb: any) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]);
  const due = await db.kysely
    .selectFrom('smpp_deliveries')
    .select('id')
    .where('account_id', '=', accountId)
    .where('next_at', '<=', now)
    .where(free)
    .orderBy('id')
    .limit(limit)
    .execute();
  if (due.length === 0) return [];
  const claimed = await db.kysely
    .updateTable('smpp_deliveries')
    .set((eb) => ({ claimed_by: holder, claimed_until: until, attempts: eb('attempts', '+', 1) }))
    .where(
      'id',
      'in',
      due.map((r) => r.id),
    )
    .where(free)
    .returningAll()
    .execute();
  return claimed.sort((a, b) => Number(a.id) - Number(b.id));
}

/** Deletes rows the customer acknowledged, while `holder` still holds them. */
export async function deleteDelivered(db: Db, ids: number[], holder: string): Promise<void> {
  await db.kysely.deleteFrom('smpp_deliveries').where('id', 'in', ids).where('claimed_by', '=', holder).execute();
}

/** Releases a row `holder` could not deliver, due again at `nextAt`. */
export async function deliverLater(db: Db, id: number, holder: string, nextAt: number): Promise<void> {
  await db.kysely
    .updateTable('smpp_deliveries')
    .set({ claimed_by: null, claimed_until: null, next_at: nextAt })
    .where('id', '=', id)
    .where('claimed_by', '=', holder)
    .execute();
}

/** Drops the rows written before `before`; returns their kinds and accounts. */
export async function dropDeliveriesBefore(
  db: Db,
  before: number,
): Promise<Array<{ kind: 'receipt' | 'reply'; account_id: number }>> {
  return db.kysely
    .deleteFrom('smpp_deliveries')
    .where('created_at', '<', before)
    .returning(['kind', 'account_id'])
    .execute();
}

/** Rows waiting in the whole deployment, by kind. */
export async function waitingByKind(db: Db): Promise<Record<'receipt' | 'reply', number>> {
  const rows = await db.kysely
    .selectFrom('smpp_deliveries')
    .select((eb) => ['kind', eb.fn.countAll<number>().as('n')])
    .groupBy('kind')
    .execute();
  const of = (kind: string) => Number(rows.find((r) => r.kind === kind)?.n ?? 0);
  return { receipt: of('receipt'), reply: of('reply') };
}
