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

export interface OperatorApiTables {
  operator_tokens: OperatorTokensTable;
}

declare module '../db/schema.js' {
  interface Database extends OperatorApiTables {}
}
