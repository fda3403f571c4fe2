import type { Generated } from 'kysely';

/** The operator alerts (docs/operators/metrics-and-alerts.md, "Alerts"). carrier_up closes a carrier_down episode. */
export type AlertType =
  | 'carrier_down'
  | 'carrier_up'
  | 'carrier_demoted'
  | 'queue_delayed'
  | 'webhook_disabled'
  | 'otp_pumping'
  | 'spend_limit'
  | 'spend_spike';

/** What opens an episode: every alert type except carrier_up, which closes a carrier_down one. */
export type EpisodeType = Exclude<AlertType, 'carrier_up'>;

/** One episode of an alert: opened once (its alert sent), closed once (carrier_up for a carrier_down). */
export interface AlertEpisodesTable {
  id: Generated<number>;
  type: EpisodeType;
  /** The carrier's name, the account's email, or '' for the job queue. */
  subject: string;
  /** `type:subject` while open, null once closed: unique, so an episode opens once across processes. */
  open_key: string | null;
  /** When the condition began (epoch ms); the alert's `since`. */
  since: number;
  opened_at: number;
  closed_at: number | null;
  /** The opening alert's body (JSON). */
  details: string;
}

export type DeliveryChannel = 'webhook' | 'email';

/** One alert to the operator by one channel; its job retries it like a customer webhook event. */
export interface AlertDeliveriesTable {
  id: Generated<number>;
  episode_id: number;
  channel: DeliveryChannel;
  /** The alert's flat JSON body. */
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface AlertTables {
  alert_episodes: AlertEpisodesTable;
  alert_deliveries: AlertDeliveriesTable;
}

declare module '../db/schema.js' {
  interface Database extends AlertTables {}
}
