import type { Db, Executor } from '../../db/engine.js';

/**
 * submit_sm whose response was never written because the customer's bind
 * had dropped (table smpp_resubmits). The SMPP server records them, and a
 * resubmission of the same PDU by the same user takes one (src/smpp-server/resubmits.ts).
 */
export interface Unanswered {
  id: number;
  fingerprint: string;
  createdAt: number;
}

/** Records one; `reference` null while its send still runs. Returns its id. */
export async function recordUnanswered(
  db: Db,
  smppUserId: number,
  fingerprint: string,
  reference: string | null,
  now = Date.now(),
): Promise<number> {
  const row = await db.kysely
    .insertInto('smpp_resubmits')
    .values({ smpp_user_id: smppUserId, fingerprint, reference, created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Its send ended: the message's reference, or null (refused: nothing to answer a resubmission with) deletes it. */
export async function settleUnanswered(db: Db, id: number, reference: string | null): Promise<void> {
  if (reference === null) await db.kysely.deleteFrom('smpp_resubmits').where('id', '=', id).execute();
  else await db.kysely.updateTable('smpp_resubmits').set({ reference }).where('id', '=', id).execute();
}

/** Records of every user older than `before`: a user who never binds again leaves none behind. */
export async function pruneUnanswered(db: Executor, before: number): Promise<number> {
  const r = await db.deleteFrom('smpp_resubmits').where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The user's records since `since`; older ones are deleted. */
export async function loadUnanswered(db: Db, smppUserId: number, since: number): Promise<Unanswered[]> {
  await db.kysely
    .deleteFrom('smpp_resubmits')
    .where('smpp_user_id', '=', smppUserId)
    .where('created_at', '<', since)
    .execute();
  const rows = await db.kysely
    .selectFrom('smpp_resubmits')
    .select(['id', 'fingerprint', 'created_at'])
    .where('smpp_user_id', '=', smppUserId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), fingerprint: r.fingerprint, createdAt: Number(r.created_at) }));
}

/**
 * Takes one record (at most one taker across processes): its reference;
 * 'running' when its send has not ended yet; null when it is gone (taken,
 * or its send was refused).
 */
export async function takeUnanswered(db: Db, id: number): Promise<string | 'running' | null> {
  const taken = await db.kysely
    .deleteFrom('smpp_resubmits')
    .where('id', '=', id)
    .where('reference', 'is not', null)
    .returning('reference')
    .executeTakeFirst();
  if (taken?.reference) return taken.reference;
  const left = await db.kysely.selectFrom('smpp_resubmits').select('id').where('id', '=', id).executeTakeFirst();
  return left ? 'running' : null;
}
