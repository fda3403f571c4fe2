import type { Generated } from 'kysely';

export interface IdempotencyKeysTable {
  id: Generated<number>;
  account_id: number;
  idem_key: string;
  /** SHA-256 of the method, route, query and body: a repeat must match it. */
  request_hash: string;
  /** Null while the first request runs. */
  status_code: number | null;
  content_type: string | null;
  response_body: string | null;
  /** While running: after this the first request is presumed dead and a repeat takes over. */
  locked_until: number;
  created_at: number;
  expires_at: number;
}

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
}

declare module '../db/schema.js' {
  interface Database extends IdempotencyTables {}
}
