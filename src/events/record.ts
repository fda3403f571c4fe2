import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database } from '../db/schema.js';

export interface NewEvent {
  accountId: number;
  type: 'confirmation' | 'response';
  reference: string;
  /** The spec's parameters of the event (strings), sent as query or form fields. */
  payload: Record<string, string>;
}

/**
 * Writes events inside the transaction of the report or reply that causes
 * them, so an event exists exactly when its cause does.
 */
export async function recordEvents(trx: Transaction<Database>, ctx: AppContext, events: NewEvent[]): Promise<void> {
  void ctx;
  if (events.length === 0) return;
  const now = Date.now();
  for (let i = 0; i < events.length; i += 500) {
    await trx
      .insertInto('events')
      .values(events.slice(i, i + 500).map((e) => ({ account_id: e.accountId, type: e.type, reference: e.reference, payload: JSON.stringify(e.payload), state: 'pending' as const, created_at: now, delivered_at: null })))
      .execute();
  }
}
