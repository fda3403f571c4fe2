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
  type: 'confirmation' | 'response' | 'webhook_disabled' | 'low_balance' | 'spend_limit';
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

/** The account's webhook (at most one): URL, status '0'/'1'. */
export interface WebhooksTable {
  account_id: number;
  url: string;
  /** 1 enabled, 0 disabled. */
  status: number;
  /** Incremented by every change, so a save made after a slow registration check cannot overwrite a newer change. */
  version: number;
  created_at: number;
  updated_at: number;
  /** First failure of the current run of failed attempts; null after a success. */
  failing_since: Generated<number | null>;
  /** Timeouts in a row; enough of them back the endpoint off. */
  timeouts: Generated<number>;
  /** Deliveries wait until then (back-off after repeated timeouts). */
  backoff_until: Generated<number | null>;
  /** Set when deliveries disabled the endpoint after failing for WEBHOOK_DISABLE_AFTER_HOURS. */
  disabled_at: Generated<number | null>;
  disabled_reason: Generated<string | null>;
}

/** The account's Standard Webhooks signing secret (`whsec_…`), AES-GCM under the server secret. Kept when the webhook is deleted. */
export interface WebhookSecretsTable {
  account_id: number;
  secret_enc: string;
  created_at: number;
}

export interface WebhookTables {
  webhooks: WebhooksTable;
  webhook_secrets: WebhookSecretsTable;
}

declare module '../db/schema.js' {
  interface Database extends EventTables, WebhookTables {}
}
