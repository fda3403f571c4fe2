import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { enqueueMany } from '../jobs/queue.js';
import { timeOrderedId } from '../lib/ids.js';
import { enabledAccounts } from './endpoint-store.js';

export interface NewEvent {
  accountId: number;
  type: 'confirmation' | 'response' | 'low_balance' | 'spend_limit';
  reference: string;
  /** The spec's parameters of the event (strings), sent as query or form fields. */
  payload: Record<string, string>;
}

export const DELIVER_JOB = 'webhooks.deliver';

/**
 * The delivery job retries on its own schedule (src/outbound/schedule.ts) and
 * ends itself when the event is delivered or failed; the queue's attempt
 * limit must never end it first, whatever the number of deferrals.
 */
export const DELIVER_JOB_MAX_ATTEMPTS = 1_000_000;

/** One delivery job per event at most: its unique key. */
export const deliveryJobKey = (eventId: number) => `webhook-event:${eventId}`;

/**
 * Writes events inside the transaction of the report or reply that causes
 * them, so an event exists exactly when its cause does. An event of an
 * account whose webhook is enabled is `pending` with its delivery job
 * enqueued in the same transaction; otherwise it is `not_delivered` and
 * never sent. Returns how many delivery jobs it enqueued (DELIVER_JOB): the
 * lane to nudge once the transaction commits, when any.
 */
export async function recordEvents(trx: Transaction<Database>, events: NewEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const now = Date.now();
  const enabled = await enabledAccounts(trx, [...new Set(events.map((e) => e.accountId))]);
  const pendingIds: number[] = [];
  for (let i = 0; i < events.length; i += 500) {
    const rows = events.slice(i, i + 500).map((e) => ({
      account_id: e.accountId,
      type: e.type,
      reference: e.reference,
      payload: JSON.stringify(e.payload),
      state: enabled.has(e.accountId) ? ('pending' as const) : ('not_delivered' as const),
      created_at: now,
      delivered_at: null,
      uid: `msg_${timeOrderedId()}`,
      next_attempt_at: enabled.has(e.accountId) ? now : null,
    }));
    if (!rows.some((r) => r.state === 'pending')) {
      await trx.insertInto('events').values(rows).execute();
      continue;
    }
    const inserted = await trx.insertInto('events').values(rows).returning(['id', 'state']).execute();
    for (const r of inserted) if (r.state === 'pending') pendingIds.push(Number(r.id));
  }
  await enqueueMany(
    trx,
    pendingIds.map((eventId) => ({
      kind: DELIVER_JOB,
      payload: { eventId },
      maxAttempts: DELIVER_JOB_MAX_ATTEMPTS,
      uniqueKey: deliveryJobKey(eventId),
    })),
  );
  return pendingIds.length;
}
