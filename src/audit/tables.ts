import type { Generated } from 'kysely';

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
  audit_log: AuditLogTable;
}

declare module '../db/schema.js' {
  interface Database extends AuditTables {}
}
