import type { AppContext } from '../context.js';
import type { QueryCreator } from 'kysely';
import type { Db } from '../db/engine.js';
import type { Database } from '../db/schema.js';
import { randomToken } from '../lib/ids.js';
import type { CarrierIds, Receipt } from './inbound-ports.js';
import { applyDeliveryReports } from './delivery.js';
import { storableText } from '../text/storable.js';
import { carrierIdsUpdate, writeCarrierIds } from './carrier-ids.js';

const CHUNK = 500;

export interface MatchedReceipt {
  messageId: number;
  code: number;
  at: number;
  read?: boolean;
  stat?: string | null;
  err?: string | null;
}

/** The longest raw receipt `stat` or `err` kept (SMPP's are 7 and 3 characters; a provider's status and code are short). */
export const RAW_RECEIPT_MAX = 32;

/** A receipt's raw fields as kept: storable and bounded (the carrier, or whoever posts its webhook, wrote them). */
function rawOf(r: Pick<Receipt, 'stat' | 'err'>): { stat: string | null; err: string | null } {
  return {
    stat: r.stat ? storableText(r.stat, RAW_RECEIPT_MAX) : null,
    err: r.err ? storableText(r.err, RAW_RECEIPT_MAX) : null,
  };
}

/**
 * How one kind of connector records its messages' carrier ids: SMPP in
 * smpp_ids (ids normalised, matched across hex and decimal), HTTP providers
 * in provider_message_ids (ids exact). The waiting receipts themselves are
 * kept the same way for both, in carrier_receipts.
 */
export interface CarrierIdBook extends Omit<CarrierIds, 'kind'> {
  /** Records carrier ids of accepted messages; returns the forms they were stored under. */
  record(
    db: QueryCreator<Database>,
    carrier: string,
    rows: Array<{ carrierId: string; messageId: number }>,
  ): Promise<string[]>;
  /** Message id of each carrier id this connector recorded. */
  lookup(db: Db, carrier: string, carrierIds: string[]): Promise<(carrierId: string) => number | undefined>;
  /** Applies matched receipts (a message takes its first final status only); returns how many changed a message. */
  apply(ctx: AppContext, receipts: MatchedReceipt[]): Promise<number>;
}

/** The id book of a kind's carrier ids (its forms are the kind's: carriers/kinds.ts). */
export const idBook = (ids: CarrierIds): CarrierIdBook => (ids.kind === 'smpp' ? smppIds(ids) : providerIds(ids));

/**
 * SMPP's carrier ids (smpp_ids). SMSCs disagree on the base: some give the
 * id in hex in submit_sm_resp and in decimal in the receipt, others the
 * reverse. The id as given wins, then its readings in the other base (forms).
 */
const smppIds = ({ normalise, forms }: CarrierIds): CarrierIdBook => ({
  normalise,
  forms,
  async record(db, carrier, ids) {
    const now = Date.now();
    const rows = ids.map((i) => ({
      carrier,
      carrier_id: normalise(i.carrierId),
      message_id: i.messageId,
      created_at: now,
    }));
    for (let i = 0; i < rows.length; i += CHUNK)
      await db
        .insertInto('smpp_ids')
        .values(rows.slice(i, i + CHUNK))
        .execute();
    return rows.map((r) => r.carrier_id);
  },
  async lookup(db, carrier, carrierIds) {
    const candidates = [...new Set(carrierIds.flatMap(forms))];
    const byId = new Map<string, number>();
    for (let i = 0; i < candidates.length; i += CHUNK) {
      const rows = await db.kysely
        .selectFrom('smpp_ids')
        .select(['carrier_id', 'message_id'])
        .where('carrier', '=', carrier)
        .where('carrier_id', 'in', candidates.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) byId.set(r.carrier_id, Number(r.message_id));
    }
    return (carrierId) => {
      for (const form of forms(carrierId)) {
        const id = byId.get(form);
        if (id !== undefined) return id;
      }
      return undefined;
    };
  },
  apply: applyDeliveryReports,
});

/**
 * HTTP providers' message ids (provider_message_ids): matched exactly, as
 * the provider gave them (wamid.… and CA… ids are case-sensitive). Statuses
 * that arrive before the id is recorded wait like SMPP's early receipts.
 */
const providerIds = ({ normalise, forms }: CarrierIds): CarrierIdBook => ({
  normalise,
  forms,
  /** An id seen again is kept as first recorded. */
  async record(db, carrier, ids) {
    const now = Date.now();
    await db
      .insertInto('provider_message_ids')
      .values(ids.map((i) => ({ carrier, carrier_id: i.carrierId, message_id: i.messageId, created_at: now })))
      .onConflict((oc) => oc.columns(['carrier', 'carrier_id']).doNothing())
      .execute();
    return ids.map((i) => i.carrierId);
  },
  async lookup(db, carrier, carrierIds) {
    const byId = await findProviderIds(db, carrier, [...new Set(carrierIds)]);
    return (carrierId) => byId.get(carrierId);
  },
  apply: applyProviderStatuses,
});

/**
 * Records the carrier ids of accepted messages (an SMPP message has one per
 * segment; the provider may call back before it answers the send), then
 * applies any receipt that arrived before them. The one record of a
 * connector's ids: the id book's rows (receipts and crash recovery find the
 * message by them) and the message's first id (`messages.carrier_id`: the
 * trace), written together; the hand-off's record leaves them alone.
 */
export async function recordCarrierIds(
  ctx: AppContext,
  book: CarrierIdBook,
  carrier: string,
  accepted: Array<{ messageId: number; carrierIds: string[] }>,
): Promise<void> {
  const rows = accepted.flatMap((a) => a.carrierIds.map((carrierId) => ({ carrierId, messageId: a.messageId })));
  if (rows.length === 0) return;
  await applyReceiptsFor(ctx, book, carrier, await recordWithFirstIds(ctx.db, book, carrier, rows));
}

/**
 * The id book's rows and the messages' first ids, together: on PostgreSQL one statement (the UPDATE a common table
 * expression of the INSERT) when the ids fit in one, otherwise one transaction.
 */
async function recordWithFirstIds(
  db: Db,
  book: CarrierIdBook,
  carrier: string,
  rows: Array<{ carrierId: string; messageId: number }>,
): Promise<string[]> {
  const update = db.engine === 'postgres' && rows.length <= CHUNK ? carrierIdsUpdate(db.kysely, rows) : null;
  // PostgreSQL runs a data-modifying WITH once, to completion, whether or not the INSERT reads it.
  if (update) return book.record(db.kysely.with('first_ids', () => update) as QueryCreator<any>, carrier, rows);
  return db.kysely.transaction().execute(async (trx) => {
    const forms = await book.record(trx, carrier, rows);
    await writeCarrierIds(trx, rows);
    return forms;
  });
}

/** Provider id → our message id, for the ids this connector recorded. */
export async function findProviderIds(db: Db, carrier: string, carrierIds: string[]): Promise<Map<string, number>> {
  if (carrierIds.length === 0) return new Map();
  const rows = await db.kysely
    .selectFrom('provider_message_ids')
    .select(['carrier_id', 'message_id'])
    .where('carrier', '=', carrier)
    .where('carrier_id', 'in', carrierIds)
    .execute();
  return new Map(rows.map((r) => [r.carrier_id, Number(r.message_id)]));
}

/**
 * Applies receipts whose message is known, and keeps the others (durably,
 * before the carrier gets its answer) in carrier_receipts: a receipt may
 * overtake the answer to its submission, or another process may not have
 * recorded the id yet. Waiting receipts are applied when their id is
 * recorded (applyReceiptsFor), and by every process's upkeep tick in any case.
 */
export async function storeReceipts(
  ctx: AppContext,
  book: CarrierIdBook,
  carrier: string,
  receipts: Receipt[],
): Promise<number> {
  if (receipts.length === 0) return 0;
  const known = await book.lookup(
    ctx.db,
    carrier,
    receipts.map((r) => r.carrierId),
  );
  const matched = receipts.flatMap((r) => {
    const messageId = known(r.carrierId);
    return messageId === undefined ? [] : [{ messageId, code: r.code, at: r.at, read: r.read, ...rawOf(r) }];
  });
  const applied = await book.apply(ctx, matched);
  const waiting = receipts
    .filter((r) => known(r.carrierId) === undefined)
    .map((r) => ({
      carrier,
      carrier_id: book.normalise(r.carrierId),
      code: r.code,
      at: r.at,
      read: r.read ? 1 : 0,
      ...rawOf(r),
    }));
  for (let i = 0; i < waiting.length; i += CHUNK)
    await ctx.db.kysely
      .insertInto('carrier_receipts')
      .values(waiting.slice(i, i + CHUNK))
      .execute();
  return applied;
}

/** After carrier ids were recorded: applies the receipts that were waiting for them (usually none: one cheap look first). */
async function applyReceiptsFor(
  ctx: AppContext,
  book: CarrierIdBook,
  carrier: string,
  carrierIds: string[],
): Promise<void> {
  if (carrierIds.length === 0) return;
  const waiting = await ctx.db.kysely
    .selectFrom('carrier_receipts')
    .select('id')
    .where('carrier', '=', carrier)
    .limit(1)
    .executeTakeFirst();
  if (waiting) await applyWaitingReceipts(ctx, book, carrier, [...new Set(carrierIds.flatMap((id) => book.forms(id)))]);
}

/**
 * Applies waiting receipts of `carrier` (those stored under the given ids,
 * or all) whose message id is now known, then forgets them. Applying twice
 * is harmless (a message takes its first final status only), so processes
 * racing here change nothing twice.
 */
export async function applyWaitingReceipts(
  ctx: AppContext,
  book: CarrierIdBook,
  carrier: string,
  carrierIds?: string[],
): Promise<number> {
  let applied = 0;
  const groups = carrierIds
    ? Array.from({ length: Math.ceil(carrierIds.length / CHUNK) }, (_, i) =>
        carrierIds.slice(i * CHUNK, (i + 1) * CHUNK),
      )
    : [null];
  for (const ids of groups) {
    let q = ctx.db.kysely
      .selectFrom('carrier_receipts')
      .select(['id', 'carrier_id', 'code', 'at', 'read', 'stat', 'err'])
      .where('carrier', '=', carrier);
    if (ids) q = q.where('carrier_id', 'in', ids);
    const rows = await q.orderBy('id').limit(5000).execute();
    if (rows.length === 0) continue;
    const known = await book.lookup(
      ctx.db,
      carrier,
      rows.map((r) => r.carrier_id),
    );
    const matched = rows.filter((r) => known(r.carrier_id) !== undefined);
    if (matched.length === 0) continue;
    applied += await book.apply(
      ctx,
      matched.map((r) => ({
        messageId: known(r.carrier_id)!,
        code: r.code,
        at: Number(r.at),
        read: Number(r.read) === 1,
        stat: r.stat ?? null,
        err: r.err ?? null,
      })),
    );
    await ctx.db.kysely
      .deleteFrom('carrier_receipts')
      .where(
        'id',
        'in',
        matched.map((r) => r.id),
      )
      .execute();
  }
  return applied;
}

/** Days an SMPP carrier id and an unmatched receipt are kept: receipts come within the validity period, at most a few days at SMSCs. */
export const SMPP_IDS_KEEP_DAYS = 7;
/** Days an HTTP provider's message id (and a read's marker) is kept: a WhatsApp read may come long after delivery. */
export const PROVIDER_IDS_KEEP_DAYS = 30;

/**
 * Housekeeping: SMPP carrier ids and receipts that never matched (those of
 * provider connectors too) after SMPP_IDS_KEEP_DAYS, HTTP providers' ids
 * after PROVIDER_IDS_KEEP_DAYS, and reply parts older than a day.
 */
export async function pruneReceipts(db: Db, now = Date.now()): Promise<void> {
  const cutoff = now - SMPP_IDS_KEEP_DAYS * 86_400_000;
  await db.kysely.deleteFrom('smpp_ids').where('created_at', '<', cutoff).execute();
  await db.kysely.deleteFrom('carrier_receipts').where('at', '<', cutoff).execute();
  await db.kysely
    .deleteFrom('provider_message_ids')
    .where('created_at', '<', now - PROVIDER_IDS_KEEP_DAYS * 86_400_000)
    .execute();
  // Parts of a reply whose other parts never came (or a part repeated after its reply was recorded).
  await db.kysely
    .deleteFrom('smpp_reply_parts')
    .where('received_at', '<', now - 86_400_000)
    .execute();
}

/** The provider's status reports: applied once per message (applyDeliveryReports keeps the first final status), and a read recorded. */
export async function applyProviderStatuses(ctx: AppContext, reports: MatchedReceipt[]): Promise<number> {
  const applied = await applyDeliveryReports(ctx, reports);
  for (const r of reports.filter((x) => x.read)) await recordProviderRead(ctx.db, r.messageId, r.at);
  return applied;
}

/**
 * A read the provider reported (WhatsApp blue ticks): counted once per
 * message on its read-tracking row, created without a link when the send
 * asked for no read confirmation. A marker row (provider_message_ids,
 * carrier "#read") taken in the same transaction makes a redelivered
 * webhook, or a waiting status applied by two processes at once, count once.
 */
async function recordProviderRead(db: Db, messageId: number, at: number): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const first = await trx
      .insertInto('provider_message_ids')
      .values({ carrier: '#read', carrier_id: String(messageId), message_id: messageId, created_at: at })
      .onConflict((oc) => oc.columns(['carrier', 'carrier_id']).doNothing())
      .executeTakeFirst();
    if (Number(first.numInsertedOrUpdatedRows ?? 0n) === 0) return;
    const updated = await trx
      .updateTable('read_trackings')
      .set((eb) => ({
        reads: eb('reads', '+', 1),
        last_read_at: at,
        first_read_at: eb.fn.coalesce('first_read_at', eb.val(at)),
      }))
      .where('message_id', '=', messageId)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return;
    const m = await trx.selectFrom('messages').select('account_id').where('id', '=', messageId).executeTakeFirst();
    if (!m) return;
    await trx
      .insertInto('read_trackings')
      .values({
        token: randomToken(9),
        account_id: m.account_id,
        message_id: messageId,
        url: '',
        contact_id: null,
        created_at: at,
        reads: 1,
        first_read_at: at,
        last_read_at: at,
      })
      .execute();
  });
}
