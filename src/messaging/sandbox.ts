import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { affected } from '../db/engine.js';
import { formatLocalDate } from '../lib/time.js';
import { Refusal } from './refusal.js';

/**
 * Counts `count` sandbox messages against the account's daily limit (a
 * Mexico City day), inside the send's transaction: one conditional UPDATE,
 * so parallel requests never pass the limit together, and a rolled-back
 * send gives its share back. Throws Refusal sandbox_limit when the request would pass it.
 */
export async function reserveSandboxQuota(
  trx: Transaction<Database>,
  accountId: number,
  count: number,
  limit: number,
  now: number,
): Promise<void> {
  const day = formatLocalDate(now);
  await trx
    .insertInto('sandbox_usage')
    .values({ account_id: accountId, day, messages: 0 })
    .onConflict((oc) => oc.columns(['account_id', 'day']).doNothing())
    .execute();
  const result = await trx
    .updateTable('sandbox_usage')
    .set({ messages: sql`messages + ${count}` })
    .where('account_id', '=', accountId)
    .where('day', '=', day)
    .where(sql<boolean>`messages + ${count} <= ${limit}`)
    .executeTakeFirst();
  if (affected(result) !== 1) throw new Refusal('sandbox_limit');
}
