import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { eventually } from './harness.js';

type Messages = SelectQueryBuilder<Database, 'messages', { id: number }>;

/**
 * Waits until every message the filter keeps is final and its hand-off is recorded. A fast carrier's receipt may
 * overtake the record of the hand-off: the message is final (stage 2, sent_at from the receipt) but has no carrier
 * until that record commits, so figures by carrier, cost or quality would not count it yet.
 */
export async function allSettled(
  db: Kysely<Database>,
  filter: (q: Messages) => Messages = (q) => q,
  timeoutMs = 20_000,
) {
  const open = () =>
    filter(db.selectFrom('messages').select('id')).where((eb) =>
      eb.or([eb('stage', '<', 2), eb.and([eb('carrier', 'is', null), eb('sent_at', 'is not', null)])]),
    );
  try {
    return await eventually(async () => (await open().executeTakeFirst()) === undefined, timeoutMs);
  } catch (error) {
    // What was left open, for the failure's report.
    const left = await open()
      .select(['stage', 'status', 'carrier', 'claim_token', 'claimed_until', 'sent_at', 'created_at'])
      .limit(5)
      .execute();
    throw new Error(`messages not settled in ${timeoutMs} ms (now ${Date.now()}): ${JSON.stringify(left)}`, {
      cause: error,
    });
  }
}
