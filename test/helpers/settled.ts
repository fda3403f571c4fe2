import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { eventually } from './harness.js';

type Messages = SelectQueryBuilder<Database, 'messages', { id: number }>;

/**
 * Waits until every message the filter keeps is final and its hand-off is recorded. A fast carrier's receipt may
 * overtake the record of the hand-off: the message is final (stage 2, sent_at from the receipt) but has no carrier
 * until that record commits, so figures by carrier, cost or quality would not count it yet.
 */
export function allSettled(db: Kysely<Database>, filter: (q: Messages) => Messages = (q) => q, timeoutMs = 20_000) {
  return eventually(async () => {
    const open = await filter(db.selectFrom('messages').select('id'))
      .where((eb) => eb.or([eb('stage', '<', 2), eb.and([eb('carrier', 'is', null), eb('sent_at', 'is not', null)])]))
      .executeTakeFirst();
    return open === undefined;
  }, timeoutMs);
}
