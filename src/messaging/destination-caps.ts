import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Executor } from '../db/engine.js';
import { Refusal } from './refusal.js';
import type { DestinationCaps } from './send-rules.js';
import type { SendRequest } from './types.js';

const HOUR_MS = 3_600_000;

/** Buckets of hours more than this many hours past are deleted (a scheduled send's future bucket stays until then). */
const KEEP_HOURS = 2;

/** What the caps count of a request: its recipients that will be sent to (not held back by an opt-out). */
export interface CountedSend {
  req: SendRequest;
  recipients: Array<{ number: string; blocked: string | undefined }>;
}

const textKey = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/**
 * Counts the messages of each request that has destination caps (set by the acceptance step: SMS and RCS, not OTP)
 * into its family's bucket of the hour it goes out in (now, or its schedule): one per number, one per number and text.
 * One upsert for the batch, in the send's transaction (each row stays locked until COMMIT, so parallel sends to one
 * number are counted one after the other, in every process); a bucket past its cap throws Refusal destination_cap, which
 * rolls the whole send back, counts included. The text counted is the request's own (a read-confirmation link added
 * per recipient does not make each text new).
 */
export async function countDestinations(
  trx: Transaction<Database>,
  sends: CountedSend[],
  now: number,
  scheduledFor: (req: SendRequest) => number | null,
): Promise<void> {
  const counts = new Map<string, { family_id: number; number: string; hour: number; text_key: string; sent: number }>();
  const capsOf = new Map<string, { caps: DestinationCaps; number: string }>();
  for (const { req, recipients } of sends) {
    const caps = req.destinationCaps;
    if (!caps) continue;
    const hour = Math.floor((scheduledFor(req) ?? now) / HOUR_MS);
    const text = caps.sameText > 0 ? textKey(req.text) : null;
    for (const r of recipients) {
      if (r.blocked !== undefined) continue;
      for (const key of caps.perNumber > 0 ? ['', text] : [text]) {
        if (key === null) continue;
        const id = JSON.stringify([caps.familyId, r.number, hour, key]);
        const row = counts.get(id);
        if (row) row.sent++;
        else counts.set(id, { family_id: caps.familyId, number: r.number, hour, text_key: key, sent: 1 });
        capsOf.set(id, { caps, number: r.number });
      }
    }
  }
  if (counts.size === 0) return;
  // In key order: two sends that share numbers lock their rows in the same order (no deadlock on PostgreSQL).
  const rows = [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  const after = await trx
    .insertInto('destination_counts')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['family_id', 'number', 'hour', 'text_key'])
        .doUpdateSet((eb) => ({ sent: eb('destination_counts.sent', '+', eb.ref('excluded.sent')) })),
    )
    .returning(['family_id', 'number', 'hour', 'text_key', 'sent'])
    .execute();
  for (const row of after) {
    const id = JSON.stringify([Number(row.family_id), row.number, Number(row.hour), row.text_key]);
    const { caps, number } = capsOf.get(id)!;
    const cap = row.text_key === '' ? caps.perNumber : caps.sameText;
    if (Number(row.sent) > cap) throw new Refusal('destination_cap', { number });
  }
}

/** Deletes the buckets of past hours (housekeeping). */
export async function pruneDestinationCounts(db: Executor, now: number): Promise<number> {
  const result = await db
    .deleteFrom('destination_counts')
    .where('hour', '<', Math.floor(now / HOUR_MS) - KEEP_HOURS)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
