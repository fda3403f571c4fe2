import type { Generated } from 'kysely';
import type { PrincipalKind } from '../accounts/tables.js';

/** Who a panel session belongs to (sessions are accounts' table: it ends them). */
export type { PrincipalKind };

/** People who run the service: they sign in to the operator view. No balance, no API key. */
export interface PanelOperatorsTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  created_at: number;
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
  panel_totp: PanelTotpTable;
}

declare module '../db/schema.js' {
  interface Database extends PanelTables {}
}
