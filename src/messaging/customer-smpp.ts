import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { isGsm7 } from '../text/gsm7.js';
import { formatReceiptText } from '../smpp/receipt-text.js';

/**
 * Receipts and replies for customers bound over SMPP, written as rows of
 * smpp_deliveries in the transaction of the status or reply they tell of:
 * the SMPP server's processes send them as deliver_sm (src/smpp-server/).
 */

/** What a queued deliver_sm carries; short_message is text, encoded when sent. */
export interface QueuedDeliverSm {
  source_addr: string;
  destination_addr: string;
  esm_class: number;
  data_coding: number;
  text: string;
  receipted_message_id?: string;
  message_state?: number;
}

/** STAT and message_state of a status code (docs/operators/smpp-server.md). */
export function receiptState(code: number): { stat: string; state: number } {
  if (code === 0) return { stat: 'DELIVRD', state: 2 };
  if (code === 3) return { stat: 'EXPIRED', state: 3 };
  if ([4, 9, 10, 12].includes(code)) return { stat: 'REJECTD', state: 8 };
  if (code === 5) return { stat: 'UNKNOWN', state: 7 };
  return { stat: 'UNDELIV', state: 5 };
}

/**
 * The address a receipt or reply goes to: the message's sender, else the
 * source_addr its SMPP customer wrote, else `0` (gateways refuse an empty one).
 */
export function customerAddress(sender: string | null, meta: string | null): string {
  if (sender) return sender;
  const source = meta?.includes('"smpp"') ? (JSON.parse(meta) as { smpp?: { source?: string } }).smpp?.source : '';
  return source || '0';
}

export interface ReceiptSource {
  reference: string;
  number: string;
  sender: string | null;
  meta: string | null;
  text: string;
  created_at: number;
}

/** The message_id the customer got for a message: its reference, or its submit_multi's (meta.smpp.message_id). */
export function customerMessageId(reference: string, meta: string | null): string {
  if (!meta?.includes('"message_id"')) return reference;
  return (JSON.parse(meta) as { smpp?: { message_id?: string } }).smpp?.message_id ?? reference;
}

export function receiptPdu(m: ReceiptSource, code: number, at: number): QueuedDeliverSm {
  const { stat, state } = receiptState(code);
  const id = customerMessageId(m.reference, m.meta);
  const text = formatReceiptText({
    id,
    sub: 1,
    dlvrd: code === 0 ? 1 : 0,
    submitted: m.created_at,
    done: at,
    stat,
    err: code,
    text: m.text,
  });
  return {
    source_addr: m.number,
    destination_addr: customerAddress(m.sender, m.meta),
    esm_class: 0x04,
    data_coding: 0,
    text,
    receipted_message_id: id,
    message_state: state,
  };
}

/** The receipt a message asked for (meta.smpp.receipt: 1 any final state, 2 failures only), if any. */
export function wantsReceipt(meta: string | null, code: number): boolean {
  if (!meta || !meta.includes('"smpp"')) return false;
  const receipt = (JSON.parse(meta) as { smpp?: { receipt?: number } }).smpp?.receipt;
  return receipt === 1 || (receipt === 2 && code !== 0);
}

export async function queueDeliverSm(
  trx: Transaction<Database>,
  rows: Array<{ accountId: number; kind: 'receipt' | 'reply'; pdu: QueuedDeliverSm }>,
  now = Date.now(),
): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto('smpp_deliveries')
    .values(
      rows.map((r) => ({
        account_id: r.accountId,
        kind: r.kind,
        pdu: JSON.stringify(r.pdu),
        created_at: now,
        next_at: now,
        attempts: 0,
        claimed_by: null,
        claimed_until: null,
      })),
    )
    .execute();
}

/** Receipts of the messages just closed that asked for one. */
export async function queueReceipts(
  trx: Transaction<Database>,
  closed: Array<{ id: number; account_id: number; meta: string | null; code: number; at: number }>,
): Promise<void> {
  const wanted = closed.filter((m) => wantsReceipt(m.meta, m.code));
  if (wanted.length === 0) return;
  const rows = await trx
    .selectFrom('messages')
    .select(['id', 'reference', 'number', 'sender', 'meta', 'text', 'created_at'])
    .where(
      'id',
      'in',
      wanted.map((m) => m.id),
    )
    .execute();
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  await queueDeliverSm(
    trx,
    wanted.flatMap((m) => {
      const row = byId.get(Number(m.id));
      const source = row && { ...row, created_at: Number(row.created_at) };
      return source
        ? [{ accountId: Number(m.account_id), kind: 'receipt' as const, pdu: receiptPdu(source, m.code, m.at) }]
        : [];
    }),
  );
}

/** A reply to one of the account's messages, for its receiver binds, when the account has SMPP users. */
export async function queueReply(
  trx: Transaction<Database>,
  reply: { accountId: number; number: string; sender: string | null; meta: string | null; text: string },
): Promise<void> {
  const user = await trx
    .selectFrom('smpp_users')
    .select('id')
    .where('account_id', '=', reply.accountId)
    .limit(1)
    .executeTakeFirst();
  if (!user) return;
  const gsm = isGsm7(reply.text);
  await queueDeliverSm(trx, [
    {
      accountId: reply.accountId,
      kind: 'reply',
      pdu: {
        source_addr: reply.number,
        destination_addr: customerAddress(reply.sender, reply.meta),
        esm_class: 0,
        data_coding: gsm ? 0 : 8,
        text: reply.text,
      },
    },
  ]);
}
