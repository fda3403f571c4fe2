import type { Generated } from 'kysely';

// What connectors receive, as messaging's carrier sink keeps it: carrier ids of messages, receipts waiting for
// their id, parts of long replies, replies nobody takes, and the counts of final receipts the carriers' quality
// window reads.

export interface SmppIdsTable {
  id: Generated<number>;
  carrier: string;
  carrier_id: string;
  message_id: number;
  created_at: number;
}

/** Receipts waiting for the id of their message (early receipts), of SMPP and HTTP provider connectors alike; deleted once applied. */
export interface CarrierReceiptsTable {
  id: Generated<number>;
  carrier: string;
  carrier_id: string;
  code: number;
  at: number;
  /** 1: a provider's `read` status (also recorded as a read of the message). */
  read: Generated<number>;
  /** The receipt as the carrier wrote it (bounded), kept for the message trace. */
  stat?: string | null;
  err?: string | null;
}

/** The provider's id of each message an HTTP provider connector accepted (its webhooks name it). */
export interface ProviderMessageIdsTable {
  carrier: string;
  carrier_id: string;
  message_id: number;
  created_at: number;
}

export interface SmppReplyPartsTable {
  carrier: string;
  source: string;
  reference: number;
  sequence: number;
  total: number;
  destination: string;
  text: string;
  received_at: number;
}

export interface UnmatchedRepliesTable {
  id: Generated<number>;
  carrier: string;
  source: string;
  destination: string;
  text: string;
  received_at: number;
}

/** Final receipts per connector per 10-second bucket (the quality window's source). */
export interface CarrierReceiptCountsTable {
  carrier: string;
  bucket: number;
  delivered: Generated<number>;
  failed: Generated<number>;
}

export interface ReceivedTables {
  smpp_ids: SmppIdsTable;
  carrier_receipts: CarrierReceiptsTable;
  provider_message_ids: ProviderMessageIdsTable;
  smpp_reply_parts: SmppReplyPartsTable;
  unmatched_replies: UnmatchedRepliesTable;
  carrier_receipt_counts: CarrierReceiptCountsTable;
}

declare module '../db/schema.js' {
  interface Database extends ReceivedTables {}
}
