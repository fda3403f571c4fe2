import type { Generated } from 'kysely';
import type { FilterAction } from '../../messaging/send-rules-tables.js';

/** An operator's content filter: a word or phrase, or a URL domain (written by this feature, read by messaging's send rules). */
export interface ContentFiltersTable {
  id: Generated<number>;
  /** The account whose family it covers; null: every account. */
  account_id: number | null;
  action: FilterAction;
  word: string | null;
  domain: string | null;
  created_at: number;
}

export interface FiltersTables {
  content_filters: ContentFiltersTable;
}

declare module '../../db/schema.js' {
  interface Database extends FiltersTables {}
}
