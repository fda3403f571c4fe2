import type { Generated } from 'kysely';

/**
 * Where a customer's message goes when it answers none of our messages
 * (src/messaging/routed-replies.ts): to `account_id` when it was sent to
 * `number` and/or starts with `keyword`. '' means any (never both '').
 */
export interface MoRoutesTable {
  id: Generated<number>;
  account_id: number;
  /** Our short code or long number, digits as the carrier writes the destination; '' any. */
  number: string;
  /** The first word in keywordForm (src/text/keyword.ts): upper case, no accents; '' any. */
  keyword: string;
  created_at: number;
}

export interface MoRouteTables {
  mo_routes: MoRoutesTable;
}

declare module '../../db/schema.js' {
  interface Database extends MoRouteTables {}
}
