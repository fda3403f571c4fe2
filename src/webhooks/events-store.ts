import type { Kysely, Selectable, Transaction } from 'kysely';
import type { PrunedMessages } from '../feature.js';
import type { Database } from '../db/schema.js';
import { affected } from '../db/engine.js';
import { cancelJobs, enqueue } from '../jobs/queue.js';
import { DELIVER_JOB, DELIVER_JOB_MAX_ATTEMPTS, deliveryJobKey } from './record.js';
import type { EventAttemptsTable, EventState, EventsTable } from './tables.js';

export interface LoggedEvent {
  event: Selectable<EventsTable>;
  attempts: Array<Selectable<EventAttemptsTable>>;
}

/** The account's newest events (optionally only failed ones), each with its delivery log. */
export async function listEvents(
  db: Kysely<Database>,
  accountId: number,
  opts: { failedOnly: boolean; limit: number; state?: EventState; type?: EventsTable['type'] },
): Promise<LoggedEvent[]> {
  let query = db.selectFrom('events').selectAll().where('account_id', '=', accountId);
  if (opts.failedOnly) query = query.where('state', '=', 'failed');
  if (opts.state) query = query.where('state', '=', opts.state);
  if (opts.type) query = query.where('type', '=', opts.type);
  const events = await query.orderBy('id', 'desc').limit(opts.limit).execute();
  if (events.length === 0) return [];
  const log = await db
    .selectFrom('event_attempts')
    .selectAll()
    .where(
      'event_id',
      'in',
      events.map((e) => e.id),
    )
    .orderBy('id')
    .execute();
  return events.map((event) => ({ event, attempts: log.filter((a) => Number(a.event_id) === Number(event.id)) }));
}

/**
 * Puts an event back to pending with a fresh round of retries and enqueues
 * its delivery, in one transaction. Refused (false) while it is pending, and
 * the job's unique key keeps one job per event.
 */
export async function redeliverEvent(db: Kysely<Database>, eventId: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const now = Date.now();
    const updated = await trx
      .updateTable('events')
      .set({ state: 'pending', attempts: 0, next_attempt_at: now, delivered_at: null })
      .where('id', '=', eventId)
      .where('state', '!=', 'pending')
      .executeTakeFirst();
    if (affected(updated) !== 1) return false;
    // A cancelled event's job may still sleep until its next retry: replace it, so the event has one job.
    await cancelJobs(trx, DELIVER_JOB, [deliveryJobKey(eventId)]);
    await enqueue(
      trx,
      DELIVER_JOB,
      { eventId },
      { maxAttempts: DELIVER_JOB_MAX_ATTEMPTS, uniqueKey: deliveryJobKey(eventId) },
    );
    return true;
  });
}

/** The ids of the account's failed events created since a moment, oldest first. */
export async function failedEventIdsSince(db: Kysely<Database>, accountId: number, since: number): Promise<number[]> {
  const rows = await db
    .selectFrom('events')
    .select('id')
    .where('account_id', '=', accountId)
    .where('state', '=', 'failed')
    .where('created_at', '>=', since)
    .orderBy('id')
    .execute();
  return rows.map((r) => Number(r.id));
}

/**
 * Message retention: the confirmation and response events of pruned messages, with their delivery log. Pending
 * ones never reach here (retention leaves their message until they are delivered or given up).
 */
export async function forgetMessageEvents(trx: Transaction<Database>, batch: PrunedMessages): Promise<number> {
  const events = await trx
    .selectFrom('events')
    .select('id')
    .where('reference', 'in', batch.references)
    .where('type', 'in', ['confirmation', 'response'])
    .where('state', '!=', 'pending')
    .execute();
  if (events.length === 0) return 0;
  const ids = events.map((e) => Number(e.id));
  const log = await trx.deleteFrom('event_attempts').where('event_id', 'in', ids).executeTakeFirst();
  const gone = await trx.deleteFrom('events').where('id', 'in', ids).executeTakeFirst();
  return Number(log.numDeletedRows) + Number(gone.numDeletedRows);
}
