import type { Generated } from 'kysely';

/** A family's spending limit per Mexico City day, in credit units, set on its top-level account (src/messaging/spend.ts). */
export interface SpendLimitsTable {
  root_account_id: number;
  daily_units: number;
}

/** What a family (a top-level account with its sub-accounts) was debited on one Mexico City day. */
export interface SpendDaysTable {
  root_account_id: number;
  /** YYYY-MM-DD, Mexico City. */
  day: string;
  units: number;
  /** The family's limit as the day's last debit saw it; null: none. */
  limit_units: number | null;
  /** The epoch hour (ms / 3 600 000) of the last debit, and what the family was debited in it. */
  hour: number;
  hour_units: number;
  /** The family's usual hourly spend (the 7 days before, over 168 hours), read with the day's first debit. */
  usual_hour_units: Generated<number>;
  /** 1 once the day's spend_limit alert and event are recorded. */
  limit_alerted: Generated<number>;
  /** The epoch hour of the last spend_spike alert. */
  spike_hour: Generated<number | null>;
}

export interface SpendTables {
  spend_limits: SpendLimitsTable;
  spend_days: SpendDaysTable;
}

declare module '../db/schema.js' {
  interface Database extends SpendTables {}
}
