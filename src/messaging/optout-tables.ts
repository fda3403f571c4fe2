import type { Generated } from 'kysely';

export type OptoutSource = 'keyword' | 'api' | 'panel';

/** A number a top-level account and its sub-accounts do not send to (src/messaging/optouts.ts). */
export interface OptoutsTable {
  id: Generated<number>;
  /** The top-level account: its sub-accounts share the list. */
  account_id: number;
  /** Full number with country code, digits only. */
  number: string;
  source: OptoutSource;
  created_at: number;
}

/** A top-level account's opt-out choices; no row: the defaults (OTP codes obey the list, no confirmation). */
export interface OptoutSettingsTable {
  account_id: number;
  exempt_otp: Generated<number>;
  /** Sent back once when a keyword puts a number on the list; null: nothing is sent. */
  confirmation: string | null;
}

export interface OptoutTables {
  optouts: OptoutsTable;
  optout_settings: OptoutSettingsTable;
}

declare module '../db/schema.js' {
  interface Database extends OptoutTables {}
}
