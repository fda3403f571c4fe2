import type { Generated } from 'kysely';

export type EventState = 'pending' | 'delivered' | 'failed' | 'not_delivered' | 'cancelled';

/**
 * An event to push to the account's webhook: written in the same transaction
 * as the delivery report or reply that causes it.
 * pending → delivered | failed (retries exhausted) | not_delivered (webhook
 * disabled or absent) | cancelled (webhook deleted while pending).
 */
export interface EventsTable {
  id: Generated<number>;
  account_id: number;
  /** webhook_disabled: recorded (never sent) when deliveries disabled the endpoint after days of failures. */
  type: 'confirmation' | 'response' | 'webhook_disabled';
  reference: string;
  /** The spec's parameters of the event, as a JSON object of strings. */
  payload: string;
  state: EventState;
  /** Attempts in the current round (a redelivery starts a new round). */
  attempts: Generated<number>;
  created_at: number;
  delivered_at: number | null;
  /** Standard Webhooks `webhook-id`: the same for every attempt of the event. */
  uid: Generated<string | null>;
  next_attempt_at: Generated<number | null>;
  last_status: Generated<number | null>;
  last_error: Generated<string | null>;
}

/** The delivery log: one row per attempt. */
export interface EventAttemptsTable {
  id: Generated<number>;
  event_id: number;
  account_id: number;
  attempted_at: number;
  url: string;
  method: string;
  /** HTTP status of the delivery (or of the HEAD check when that failed); null when nothing answered. */
  http_status: number | null;
  duration_ms: number;
  error: string | null;
}

export interface EventTables {
  events: EventsTable;
  event_attempts: EventAttemptsTable;
}
