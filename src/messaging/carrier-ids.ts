import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';

const CHUNK = 500;

/**
 * The one writer of `messages.carrier_id`: each message's first carrier id,
 * kept once (a message that already has one keeps it). A connector's sink
 * writes it with the id book's rows, in their transaction, as the carrier
 * acknowledges (receipts.ts, recordCarrierIds); the hand-off's record writes it
 * only for a driver that has no sink of its own (handoff-record.ts). One
 * UPDATE per 500 messages, taken in id order as every writer of several
 * messages takes them.
 */
export async function writeCarrierIds(
  db: Executor,
  accepted: Array<{ messageId: number; carrierId: string }>,
): Promise<void> {
  const first = new Map<number, string>();
  for (const a of accepted) if (a.carrierId !== '' && !first.has(a.messageId)) first.set(a.messageId, a.carrierId);
  const rows = [...first].sort(([a], [b]) => a - b);
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    await db
      .updateTable('messages')
      .set({
        carrier_id: sql<string>`case id ${sql.join(
          chunk.map(([id, carrierId]) => sql`when ${id} then ${carrierId}`),
          sql` `,
        )} end`,
      })
      .where(
        'id',
        'in',
        chunk.map(([id]) => id),
      )
      .where('carrier_id', 'is', null)
      .execute();
  }
}
