import type { Generated } from 'kysely';

/**
 * The tables, as Kysely sees them. Times are epoch milliseconds (BIGINT),
 * flags are 0/1 integers, money is integer units: the same on both engines.
 */
export interface AccountsTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  /** Credit units: 1 credit = CREDIT_UNITS (see src/accounts/credits.ts). */
  credits: Generated<number>;
  parent_id: number | null;
  status: Generated<'active' | 'archived'>;
  /** JSON array of CIDRs, or null for no restriction. */
  allow_ips: string | null;
  webhook_method: Generated<'GET' | 'POST'>;
  rate_limit_per_sec: number | null;
  /** Cap of sub-accounts for this account; null: SUBACCOUNTS_PER_ACCOUNT. */
  max_subaccounts: Generated<number | null>;
  created_at: number;
  archived_at: number | null;
  /** 1: archived by the operator (alone or with its parent): its accepted sends are not handed over. */
  suspended: Generated<number>;
  /** 1: the IP allow-list applies to the panel too (the parent's setting covers its sub-accounts). */
  panel_allow_ip: Generated<number>;
  /** Low-balance threshold in credit units; null: no low-balance event. */
  low_balance_units: Generated<number | null>;
  /** 1 once the event of the current crossing is recorded; 0 again when the balance rises above the threshold. */
  low_balance_sent: Generated<number>;
  /** Money per credit in ten-thousandths of COST_CURRENCY; null: CREDIT_VALUE (migration 0034). */
  credit_value?: number | null;
  /** 1: long SMS over HTTP (concatenated parts); 0 off; null as its parent, off at the top (migration 0045). */
  long_sms?: number | null;
  /** 1: texts GSM-7 cannot hold go as UCS-2 instead of being replaced; 0 off; null as its parent (migration 0045). */
  unicode_sms?: number | null;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  key_hash: string;
  key_enc: string;
  created_at: number;
  revoked_at: number | null;
}

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  payload: string;
  state: Generated<'pending' | 'failed'>;
  run_at: number;
  attempts: Generated<number>;
  max_attempts: number;
  locked_until: number | null;
  locked_by: string | null;
  last_error: string | null;
  unique_key: string | null;
  created_at: number;
}

/** Bumped with every change of a list each process caches (`prices`, `costs`, `send_rules`): see src/db/revisioned.ts. */
export interface RateRevisionsTable {
  name: 'prices' | 'costs' | 'send_rules';
  revision: number;
}

export interface FoundationTables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  jobs: JobsTable;
  rate_revisions: RateRevisionsTable;
}

/**
 * Every table. This file names only the foundation's: each module declares its
 * own in its tables.ts and adds them here by declaration merging
 * (`declare module '../db/schema.js' { interface Database extends XTables {} }`),
 * so the database layer imports nothing of the modules above it.
 */
export interface Database extends FoundationTables {}
