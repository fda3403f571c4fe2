import type { Generated } from 'kysely';

/** One token of the operator API (migration 0044): only the SHA-256 of the token is stored. */
export interface OperatorTokensTable {
  id: Generated<number>;
  name: string;
  token_hash: string;
  /** 1: GET only; a write answers 403. */
  read_only: Generated<number>;
  created_at: number;
  /** Written at most once a minute per token. */
  last_used_at: number | null;
  revoked_at: number | null;
}

/** One change made through the operator API, the CLI or the panel's operator view. */
export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  /** `token:NAME`, `cli` or `panel:EMAIL`. */
  actor: string;
  /** `<group>.<subcommand>` as the CLI names it (`accounts.credits`). */
  action: string;
  target: string | null;
  /** JSON object, secrets left out. */
  detail: string;
  address: string | null;
}

export interface AuditTables {
  operator_tokens: OperatorTokensTable;
  audit_log: AuditLogTable;
}

declare module '../db/schema.js' {
  interface Database extends AuditTables {}
}
