import { sql, type QueryCreator } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Executor } from '../db/engine.js';

/** Messages per UPDATE of their carrier ids. */
export const CARRIER_IDS_CHUNK = 500;

type Accepted = Array<{ messageId: number; carrierId: string }>;

/**
 * The one writer of `messages.carrier_id`: each message's first carrier id,
 * kept once (a message that already has one keeps it). A connector's sink
 * writes it with the id book's rows, in their transaction or statement, as
 * the carrier acknowledges (receipts.ts, recordCarrierIds); the hand-off's
 * record writes it only for a driver that has no sink of its own
 * (outcomes.ts). One UPDATE per CARRIER_IDS_CHUNK messages, which
 * takes them in id order as every writer of several messages does.
 */
export async function writeCarrierIds(db: Executor, accepted: Accepted): Promise<void> {
  const rows = firstIds(accepted);
  for (let i = 0; i < rows.length; i += CARRIER_IDS_CHUNK)
    await updateOf(db, rows.slice(i, i + CARRIER_IDS_CHUNK)).execute();
}

/**
 * The UPDATE of at most CARRIER_IDS_CHUNK messages' first ids (none: null),
 * for PostgreSQL to run as a common table expression of the id book's INSERT:
 * one statement, one round trip, for both records.
 */
export function carrierIdsUpdate(db: QueryCreator<Database>, accepted: Accepted) {
  const rows = firstIds(accepted);
  if (rows.length === 0) return null;
  if (rows.length > CARRIER_IDS_CHUNK) throw new Error(`at most ${CARRIER_IDS_CHUNK} messages per update`);
  return updateOf(db, rows);
}

function updateOf(db: QueryCreator<Database>, rows: Array<[number, string]>) {
  return db
    .updateTable('messages')
    .set({
      carrier_id: sql<string>`case id ${sql.join(
        rows.map(([id, carrierId]) => sql`when ${id} then ${carrierId}`),
        sql` `,
      )} end`,
    })
    .where(
      'id',
      'in',
      rows.map(([id]) => id),
    )
    .where('carrier_id', 'is', null);
}

/** Each message's first non-empty id, in message id order. */
function firstIds(accepted: Accepted): Array<[number, string]> {
  const first = new Map<number, string>();
  for (const a of accepted) if (a.carrierId !== '' && !first.has(a.messageId)) first.set(a.messageId, a.carrierId);
  return [...first].sort(([a], [b]) => a - b);
}
