import type { Generated } from 'kysely';

/**
 * An event to push to the account's webhook: written in the same transaction
 * as the delivery report or reply that causes it.
 */
export interface EventsTable {
  id: Generated<number>;
  account_id: number;
  type: 'confirmation' | 'response';
  reference: string;
  /** The spec's parameters of the event, as a JSON object of strings. */
  payload: string;
  state: 'pending' | 'delivered' | 'failed' | 'not_delivered' | 'cancelled';
  attempts: Generated<number>;
  created_at: number;
  delivered_at: number | null;
}

export interface EventTables {
  events: EventsTable;
}
