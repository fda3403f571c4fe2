import type { Generated } from 'kysely';

// The customer notices messaging writes with the status or reply they tell of; the SMPP server's delivery pump
// claims, sends and deletes them through src/messaging/customer-notices.ts.

/**
 * A receipt or reply waiting for a receiver bind of its account: what to
 * tell (`notice`, JSON: messaging's ReceiptNotice or ReplyNotice), rendered
 * as a deliver_sm when sent, kept until a deliver_sm_resp 0 deletes it.
 */
export interface SmppDeliveriesTable {
  id: Generated<number>;
  account_id: number;
  kind: 'receipt' | 'reply';
  notice: string;
  created_at: number;
  next_at: number;
  attempts: number;
  /** The process sending it now, until `claimed_until`. */
  claimed_by: string | null;
  claimed_until: number | null;
}

export interface NoticeTables {
  smpp_deliveries: SmppDeliveriesTable;
}

declare module '../db/schema.js' {
  interface Database extends NoticeTables {}
}
