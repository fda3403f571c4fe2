import type { Generated } from 'kysely';

// Accounts' tables: the accounts, their API keys, their one-time password reset links, and the panel's sessions
// (of accounts and operators), which accounts ends when a password changes or a family is archived.

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

/** A one-time link that sets an account's panel password (migration 0049_ledger_reset_links): only its hash is kept. */
export interface ResetLinksTable {
  token_hash: string;
  account_id: number;
  created_at: number;
  expires_at: number;
}

/** Who a panel session belongs to: an account (or sub-account) or an operator. */
export type PrincipalKind = 'account' | 'operator';

/** A signed-in browser. The cookie carries the token; only its SHA-256 is stored. */
export interface PanelSessionsTable {
  id: Generated<number>;
  token_hash: string;
  /** Synchronizer token every state-changing form must send back. */
  csrf_token: string;
  kind: PrincipalKind;
  principal_id: number;
  created_at: number;
  expires_at: number;
  /** 1 between the password and the authenticator code of a two-step sign-in: only the code page is open. */
  pending_totp: Generated<number>;
}

export interface AccountTables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  reset_links: ResetLinksTable;
  panel_sessions: PanelSessionsTable;
}

declare module '../db/schema.js' {
  interface Database extends AccountTables {}
}
