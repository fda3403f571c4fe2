import type { Selectable, Transaction } from 'kysely';
import type { Db } from '../db/engine.js';
import type { Database } from '../db/schema.js';
import type { SmppDeliveriesTable } from './notice-tables.js';

/**
 * What customers bound over SMPP are told, as facts: a final status of one of
 * their messages (a receipt) or a customer's reply. They are written as rows of
 * smpp_deliveries in the transaction of the status or reply they tell of, and
 * the SMPP server's processes render each as a deliver_sm (src/smpp-server/notices.ts), taking and settling the
 * rows through the functions at the end of this file (its delivery pump: src/smpp-server/deliveries.ts).
 */

/** A final status of a message a customer asked a receipt for. */
export interface ReceiptNotice {
  /** The message_id the customer got for the message. */
  message_id: string;
  /** The recipient the message went to. */
  number: string;
  /** Where the receipt goes: the customer's address for it (customerAddress). */
  address: string;
  /** The message's text (its first characters are shown). */
  text: string;
  submitted_at: number;
  done_at: number;
  /** The status code (docs/api: 0 delivered, 3 expired, …). */
  code: number;
}

/** A reply a customer's recipient wrote. */
export interface ReplyNotice {
  /** Who wrote it. */
  number: string;
  /** Where it goes: the customer's address (customerAddress). */
  address: string;
  text: string;
}

export type CustomerNotice = { kind: 'receipt'; notice: ReceiptNotice } | { kind: 'reply'; notice: ReplyNotice };

/**
 * The address a receipt or reply goes to: the message's sender, else the
 * source_addr its SMPP customer wrote, else `0` (gateways refuse an empty one).
 */
export function customerAddress(sender: string | null, meta: string | null): string {
  if (sender) return sender;
  const source = meta?.includes('"smpp"') ? (JSON.parse(meta) as { smpp?: { source?: string } }).smpp?.source : '';
  return source || '0';
}

/** The message_id the customer got for a message: its reference, or its submit_multi's (meta.smpp.message_id). */
export function customerMessageId(reference: string, meta: string | null): string {
  if (!meta?.includes('"message_id"')) return reference;
  return (JSON.parse(meta) as { smpp?: { message_id?: string } }).smpp?.message_id ?? reference;
}

/** The receipt a message asked for (meta.smpp.receipt: 1 any final state, 2 failures only), if any. */
export function wantsReceipt(meta: string | null, code: number): boolean {
  if (!meta || !meta.includes('"smpp"')) return false;
  const receipt = (JSON.parse(meta) as { smpp?: { receipt?: number } }).smpp?.receipt;
  return receipt === 1 || (receipt === 2 && code !== 0);
}

export async function queueNotices(
  trx: Transaction<Database>,
  rows: Array<{ accountId: number } & CustomerNotice>,
  now = Date.now(),
): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto('smpp_deliveries')
    .values(
      rows.map((r) => ({
        account_id: r.accountId,
        kind: r.kind,
        notice: JSON.stringify(r.notice),
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
  await queueNotices(
    trx,
    wanted.flatMap((m) => {
      const row = byId.get(Number(m.id));
      if (!row) return [];
      const notice: ReceiptNotice = {
        message_id: customerMessageId(row.reference, row.meta),
        number: row.number,
        address: customerAddress(row.sender, row.meta),
        text: row.text,
        submitted_at: Number(row.created_at),
        done_at: m.at,
        code: m.code,
      };
      return [{ accountId: Number(m.account_id), kind: 'receipt' as const, notice }];
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
  await queueNotices(trx, [
    {
      accountId: reply.accountId,
      kind: 'reply',
      notice: { number: reply.number, address: customerAddress(reply.sender, reply.meta), text: reply.text },
    },
  ]);
}

// The SMPP server's delivery pump: claims, acknowledgements, retries and expiry of the rows written above.

/** A receipt or reply waiting for a receiver bind, as the SMPP server's delivery pump takes it. */
export type WaitingDelivery = Selectable<SmppDeliveriesTable>;

/**
 * Claims up to `limit` due rows of an account for `holder` until `until`: those never claimed or whose claim lapsed.
 * Two statements (the ids, then the claim with the same condition), so two processes never claim one row at once.
 */
export async function claimDeliveries(
  db: Db,
  accountId: number,
  limit: number,
  holder: string,
  now: number,
  until: number,
): Promise<WaitingDelivery[]> {
  const free = (eb: any) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]);
  const due = await db.kysely
    .selectFrom('smpp_deliveries')
    .select('id')
    .where('account_id', '=', accountId)
    .where('next_at', '<=', now)
    .where(free)
    .orderBy('id')
    .limit(limit)
    .execute();
  if (due.length === 0) return [];
  const claimed = await db.kysely
    .updateTable('smpp_deliveries')
    .set((eb) => ({ claimed_by: holder, claimed_until: until, attempts: eb('attempts', '+', 1) }))
    .where(
      'id',
      'in',
      due.map((r) => r.id),
    )
    .where(free)
    .returningAll()
    .execute();
  return claimed.sort((a, b) => Number(a.id) - Number(b.id));
}

/** Deletes rows the customer acknowledged, while `holder` still holds them. */
export async function deleteDelivered(db: Db, ids: number[], holder: string): Promise<void> {
  await db.kysely.deleteFrom('smpp_deliveries').where('id', 'in', ids).where('claimed_by', '=', holder).execute();
}

/** Releases a row `holder` could not deliver, due again at `nextAt`. */
export async function deliverLater(db: Db, id: number, holder: string, nextAt: number): Promise<void> {
  await db.kysely
    .updateTable('smpp_deliveries')
    .set({ claimed_by: null, claimed_until: null, next_at: nextAt })
    .where('id', '=', id)
    .where('claimed_by', '=', holder)
    .execute();
}

/** Drops the rows written before `before`; returns their kinds and accounts. */
export async function dropDeliveriesBefore(
  db: Db,
  before: number,
): Promise<Array<{ kind: 'receipt' | 'reply'; account_id: number }>> {
  return db.kysely
    .deleteFrom('smpp_deliveries')
    .where('created_at', '<', before)
    .returning(['kind', 'account_id'])
    .execute();
}

/** Rows waiting in the whole deployment, by kind. */
export async function waitingByKind(db: Db): Promise<Record<'receipt' | 'reply', number>> {
  const rows = await db.kysely
    .selectFrom('smpp_deliveries')
    .select((eb) => ['kind', eb.fn.countAll<number>().as('n')])
    .groupBy('kind')
    .execute();
  const of = (kind: string) => Number(rows.find((r) => r.kind === kind)?.n ?? 0);
  return { receipt: of('receipt'), reply: of('reply') };
}
