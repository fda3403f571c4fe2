import type { Transaction } from 'kysely';
import type { Executor } from '../db/engine.js';
import type { Database } from '../db/schema.js';

/** The receipt counts' bucket: 10 seconds (a 10-minute quality window sums 60 rows per connector). */
export const RECEIPT_BUCKET_MS = 10_000;

/**
 * Counts final receipts per connector and 10-second bucket of their time, in
 * the transaction that applies them: the quality window
 * (src/carriers/quality.ts) reads these few rows instead of the messages.
 * Rows are written in key order, so concurrent receipt transactions on
 * PostgreSQL never wait on each other in a cycle.
 */
export async function countReceipts(
  trx: Transaction<Database>,
  applied: Array<{ carrier: string | null; code: number; at: number }>,
): Promise<void> {
  const counts = new Map<string, { carrier: string; bucket: number; delivered: number; failed: number }>();
  for (const r of applied) {
    if (r.carrier === null) continue;
    const bucket = r.at - (r.at % RECEIPT_BUCKET_MS);
    const key = `${r.carrier}\u0000${bucket}`;
    let row = counts.get(key);
    if (!row) counts.set(key, (row = { carrier: r.carrier, bucket, delivered: 0, failed: 0 }));
    if (r.code === 0) row.delivered++;
    else row.failed++;
  }
  const rows = [...counts.values()].sort((a, b) =>
    a.carrier === b.carrier ? a.bucket - b.bucket : a.carrier < b.carrier ? -1 : 1,
  );
  for (const row of rows)
    await trx
      .insertInto('carrier_receipt_counts')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['carrier', 'bucket']).doUpdateSet((eb) => ({
          delivered: eb('carrier_receipt_counts.delivered', '+', eb.ref('excluded.delivered')),
          failed: eb('carrier_receipt_counts.failed', '+', eb.ref('excluded.failed')),
        })),
      )
      .execute();
}

/** Receipt counts older than this are pruned (longer than the longest quality window). */
export const RECEIPT_COUNTS_KEEP_MS = 2 * 86_400_000;

export async function pruneReceiptCounts(db: Executor, now: number): Promise<void> {
  await db
    .deleteFrom('carrier_receipt_counts')
    .where('bucket', '<', now - RECEIPT_COUNTS_KEEP_MS)
    .execute();
}
