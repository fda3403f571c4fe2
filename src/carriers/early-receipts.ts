import type { AppContext } from '../context.js';

const CHUNK = 500;

/** A receipt (delivery report, provider status) naming a message by its carrier id. */
export interface Receipt {
  carrierId: string;
  code: number;
  at: number;
  /** A provider's `read` status: also recorded as a read of the message. */
  read?: boolean;
}

export interface MatchedReceipt {
  messageId: number;
  code: number;
  at: number;
  read?: boolean;
}

/**
 * How one kind of connector records its messages' carrier ids: SMPP in
 * smpp_ids (ids normalised, matched across hex and decimal), HTTP providers
 * in provider_message_ids (ids exact). The waiting receipts themselves are
 * kept the same way for both, in smpp_receipts.
 */
export interface CarrierIdBook {
  /** The form a waiting receipt's id is stored under. */
  normalise(id: string): string;
  /** The stored forms under which a receipt for a recorded id may be waiting. */
  forms(id: string): string[];
  /** Message id of each carrier id this connector recorded. */
  lookup(ctx: AppContext, carrier: string, carrierIds: string[]): Promise<(carrierId: string) => number | undefined>;
  /** Applies matched receipts (a message takes its first final status only); returns how many changed a message. */
  apply(ctx: AppContext, receipts: MatchedReceipt[]): Promise<number>;
}

/**
 * Applies receipts whose message is known, and keeps the others (durably,
 * before the carrier gets its answer) in smpp_receipts: a receipt may
 * overtake the answer to its submission, or another process may not have
 * recorded the id yet. Waiting receipts are applied when their id is
 * recorded (applyReceiptsFor), and by every process's upkeep tick in any case.
 */
export async function storeReceipts(ctx: AppContext, book: CarrierIdBook, carrier: string, receipts: Receipt[]): Promise<number> {
  if (receipts.length === 0) return 0;
  const known = await book.lookup(ctx, carrier, receipts.map((r) => r.carrierId));
  const matched = receipts.flatMap((r) => {
    const messageId = known(r.carrierId);
    return messageId === undefined ? [] : [{ messageId, code: r.code, at: r.at, read: r.read }];
  });
  const applied = await book.apply(ctx, matched);
  const waiting = receipts
    .filter((r) => known(r.carrierId) === undefined)
    .map((r) => ({ carrier, carrier_id: book.normalise(r.carrierId), code: r.code, at: r.at, read: r.read ? 1 : 0 }));
  for (let i = 0; i < waiting.length; i += CHUNK) await ctx.db.kysely.insertInto('smpp_receipts').values(waiting.slice(i, i + CHUNK)).execute();
  return applied;
}

/** After carrier ids were recorded: applies the receipts that were waiting for them (usually none: one cheap look first). */
export async function applyReceiptsFor(ctx: AppContext, book: CarrierIdBook, carrier: string, carrierIds: string[]): Promise<void> {
  if (carrierIds.length === 0) return;
  const waiting = await ctx.db.kysely.selectFrom('smpp_receipts').select('id').where('carrier', '=', carrier).limit(1).executeTakeFirst();
  if (waiting) await applyWaitingReceipts(ctx, book, carrier, [...new Set(carrierIds.flatMap((id) => book.forms(id)))]);
}

/**
 * Applies waiting receipts of `carrier` (those stored under the given ids,
 * or all) whose message id is now known, then forgets them. Applying twice
 * is harmless (a message takes its first final status only), so processes
 * racing here change nothing twice.
 */
export async function applyWaitingReceipts(ctx: AppContext, book: CarrierIdBook, carrier: string, carrierIds?: string[]): Promise<number> {
  let applied = 0;
  const groups = carrierIds ? Array.from({ length: Math.ceil(carrierIds.length / CHUNK) }, (_, i) => carrierIds.slice(i * CHUNK, (i + 1) * CHUNK)) : [null];
  for (const ids of groups) {
    let q = ctx.db.kysely.selectFrom('smpp_receipts').select(['id', 'carrier_id', 'code', 'at', 'read']).where('carrier', '=', carrier);
    if (ids) q = q.where('carrier_id', 'in', ids);
    const rows = await q.orderBy('id').limit(5000).execute();
    if (rows.length === 0) continue;
    const known = await book.lookup(ctx, carrier, rows.map((r) => r.carrier_id));
    const matched = rows.filter((r) => known(r.carrier_id) !== undefined);
    if (matched.length === 0) continue;
    applied += await book.apply(ctx, matched.map((r) => ({ messageId: known(r.carrier_id)!, code: r.code, at: Number(r.at), read: Number(r.read) === 1 })));
    await ctx.db.kysely.deleteFrom('smpp_receipts').where('id', 'in', matched.map((r) => r.id)).execute();
  }
  return applied;
}
