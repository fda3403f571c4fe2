import type { Generated } from 'kysely';

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
