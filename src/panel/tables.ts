import type { Generated } from 'kysely';

/** Who a panel session belongs to: an account (or sub-account) or an operator. */
export type PrincipalKind = 'account' | 'operator';

/** People who run the service: they sign in to the operator view. No balance, no API key. */
export interface PanelOperatorsTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  created_at: number;
}

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

/** Two-step sign-in: the authenticator's secret (encrypted), on once a first code confirmed it. */
export interface PanelTotpTable {
  kind: PrincipalKind;
  principal_id: number;
  secret_enc: string;
  enabled: number;
  /** The newest 30-second step a code was accepted for: a code works once. */
  last_step: Generated<number>;
  created_at: number;
}

export interface PanelTables {
  panel_operators: PanelOperatorsTable;
  panel_sessions: PanelSessionsTable;
  panel_totp: PanelTotpTable;
}

declare module '../db/schema.js' {
  interface Database extends PanelTables {}
}
