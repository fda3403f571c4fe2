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
}

/** One row per refused sign-in: the throttle counts them per email and per address. */
export interface PanelSigninFailuresTable {
  id: Generated<number>;
  email: string;
  ip: string;
  at: number;
}

export interface PanelTables {
  panel_operators: PanelOperatorsTable;
  panel_sessions: PanelSessionsTable;
  panel_signin_failures: PanelSigninFailuresTable;
}
