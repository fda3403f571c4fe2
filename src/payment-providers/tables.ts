import type { Generated } from 'kysely';

// What the payment providers keep: their settings (the operator's, encrypted) and every webhook they were sent.

export interface PaymentProviderSettingsTable {
  id: Generated<number>;
  provider: string;
  api_base: string;
  secret_key_enc: string;
  webhook_secret_enc: string;
  updated_at: number;
}

export interface PaymentWebhooksTable {
  id: Generated<number>;
  provider: string;
  event_id: string | null;
  event_type: string | null;
  outcome: 'applied' | 'duplicate' | 'ignored' | 'refused';
  reason: string | null;
  remote_address: string | null;
  received_at: number;
}

export interface PaymentProviderTables {
  payment_provider_settings: PaymentProviderSettingsTable;
  payment_webhooks: PaymentWebhooksTable;
}

declare module '../db/schema.js' {
  interface Database extends PaymentProviderTables {}
}
