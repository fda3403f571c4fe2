/*
 * The tables, as Kysely sees them. Times are epoch milliseconds (BIGINT),
 * flags are 0/1 integers, money is integer units: the same on both engines.
 */

/** Bumped with every change of a list each process caches (`prices`, `costs`, `send_rules`): see src/db/revisioned.ts. */
export interface RateRevisionsTable {
  name: 'prices' | 'costs' | 'send_rules';
  revision: number;
}

/** The database layer's own table; accounts and jobs declare theirs in their tables.ts. */
export interface FoundationTables {
  rate_revisions: RateRevisionsTable;
}

/**
 * Every table. This file names only the foundation's: each module declares its
 * own in its tables.ts and adds them here by declaration merging
 * (`declare module '../db/schema.js' { interface Database extends XTables {} }`),
 * so the database layer imports nothing of the modules above it.
 */
export interface Database extends FoundationTables {}
