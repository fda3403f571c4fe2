import type { Generated } from 'kysely';

/** Alphanumeric senders registered for an account (CLI `senders add`); `rcs` 1 when linked for RCS. */
export interface SendersTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  rcs: number;
  created_at: number;
}

/** One short link per send with shorten_url 1: GET /s/{code} redirects to `url` and counts the click. */
export interface ShortLinksTable {
  id: Generated<number>;
  code: string;
  account_id: number;
  campaign_id: number;
  url: string;
  clicks: Generated<number>;
  created_at: number;
  last_click_at: number | null;
}

/** The operator's landline numbering plan: a national number starting with `prefix` is a landline. */
export interface LandlinePrefixesTable {
  country_code: string;
  prefix: string;
  description: string | null;
}

export interface SmsTables {
  senders: SendersTable;
  short_links: ShortLinksTable;
  landline_prefixes: LandlinePrefixesTable;
}

declare module '../../db/schema.js' {
  interface Database extends SmsTables {}
}
