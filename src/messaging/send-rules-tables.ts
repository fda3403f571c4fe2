/** An account's own abuse settings (`accounts set`); null: its parent's, else the deployment's (send-rules.ts). */
export interface SendRulesTable {
  account_id: number;
  /** Comma-separated country codes its sends may go to (every channel); null: the deployment's lists. */
  countries: string | null;
  /** Messages of the family to one number per hour; null: DESTINATION_MAX_PER_NUMBER_HOUR. */
  max_per_number_hour: number | null;
  /** Messages of the family with one text to one number per hour; null: DESTINATION_MAX_SAME_TEXT_HOUR. */
  max_same_text_hour: number | null;
  /** 1: only registered senders; 0: any (unregistered names fall back to the default sender); null: as the parent. */
  senders_registered: number | null;
  updated_at: number;
}

/** A family's messages to one number in one hour bucket: all of them (text_key ''), or those with one text. */
export interface DestinationCountsTable {
  family_id: number;
  number: string;
  /** Epoch hours (epoch ms / 3,600,000, rounded down) of the send, or of its schedule. */
  hour: number;
  text_key: string;
  sent: number;
}

/** What a content filter does to a send that matches it (its table is the filters feature's: features/filters/tables.ts). */
export type FilterAction = 'block' | 'flag';

export interface SendRulesTables {
  send_rules: SendRulesTable;
  destination_counts: DestinationCountsTable;
}

declare module '../db/schema.js' {
  interface Database extends SendRulesTables {}
}
