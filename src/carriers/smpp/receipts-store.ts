import type { AppContext } from '../../context.js';
import { applyDeliveryReports } from '../../messaging/delivery.js';
import { idForms, normaliseId } from './receipts.js';

const CHUNK = 500;

/**
 * Records the carrier id of each accepted segment (normalised, see
 * normaliseId), then applies any receipt that arrived before it.
 */
export async function recordSubmittedIds(ctx: AppContext, carrier: string, accepted: Array<{ messageId: number; ids: string[] }>): Promise<void> {
  const now = Date.now();
  const rows = accepted.flatMap((a) => a.ids.map((id) => ({ carrier, carrier_id: normaliseId(id), message_id: a.messageId, created_at: now })));
  for (let i = 0; i < rows.length; i += CHUNK) await ctx.db.kysely.insertInto('smpp_ids').values(rows.slice(i, i + CHUNK)).execute();
  // Usually no receipt is waiting: one cheap look before the real one.
  const waiting = await ctx.db.kysely.selectFrom('smpp_receipts').select('id').where('carrier', '=', carrier).limit(1).executeTakeFirst();
  if (waiting) await applyWaitingReceipts(ctx, carrier, [...new Set(rows.flatMap((r) => idForms(r.carrier_id)))]);
}

export interface Receipt {
  carrierId: string;
  code: number;
  at: number;
}

/**
 * Applies receipts whose message is known, and keeps the others (durably,
 * before the SMSC gets deliver_sm_resp) in smpp_receipts: a receipt may
 * overtake its submit_sm_resp, or another process may not have recorded the
 * id yet. Waiting receipts are applied when their id is recorded, and by
 * every process's upkeep tick in any case.
 */
export async function storeReceipts(ctx: AppContext, carrier: string, receipts: Receipt[]): Promise<void> {
  if (receipts.length === 0) return;
  const known = await lookup(ctx, carrier, receipts.map((r) => r.carrierId));
  const matched = receipts.flatMap((r) => {
    const messageId = known(r.carrierId);
    return messageId === undefined ? [] : [{ messageId, code: r.code, at: r.at }];
  });
  await applyDeliveryReports(ctx, matched);
  const waiting = receipts.filter((r) => known(r.carrierId) === undefined).map((r) => ({ carrier, carrier_id: normaliseId(r.carrierId), code: r.code, at: r.at }));
  for (let i = 0; i < waiting.length; i += CHUNK) await ctx.db.kysely.insertInto('smpp_receipts').values(waiting.slice(i, i + CHUNK)).execute();
}

/**
 * The message id for a receipt's carrier id. SMSCs disagree on the base:
 * some give the id in hex in submit_sm_resp and in decimal in the receipt,
 * others the reverse. The id as given wins, then its readings in the other
 * base (idForms).
 */
async function lookup(ctx: AppContext, carrier: string, carrierIds: string[]): Promise<(carrierId: string) => number | undefined> {
  const candidates = [...new Set(carrierIds.flatMap(idForms))];
  const byId = new Map<string, number>();
  for (let i = 0; i < candidates.length; i += CHUNK) {
    const rows = await ctx.db.kysely.selectFrom('smpp_ids').select(['carrier_id', 'message_id']).where('carrier', '=', carrier).where('carrier_id', 'in', candidates.slice(i, i + CHUNK)).execute();
    for (const r of rows) byId.set(r.carrier_id, Number(r.message_id));
  }
  return (carrierId) => {
    for (const form of idForms(carrierId)) {
      const id = byId.get(form);
      if (id !== undefined) return id;
    }
    return undefined;
  };
}

/**
 * Applies waiting receipts of `carrier` (those stored under the given ids,
 * or all) whose message id is now known, then forgets them. Applying twice
 * is harmless (a message takes its first final status only), so processes
 * racing here change nothing twice.
 */
export async function applyWaitingReceipts(ctx: AppContext, carrier: string, carrierIds?: string[]): Promise<number> {
  let applied = 0;
  const groups = carrierIds ? Array.from({ length: Math.ceil(carrierIds.length / CHUNK) }, (_, i) => carrierIds.slice(i * CHUNK, (i + 1) * CHUNK)) : [null];
  for (const ids of groups) {
    let q = ctx.db.kysely.selectFrom('smpp_receipts').select(['id', 'carrier_id', 'code', 'at']).where('carrier', '=', carrier);
    if (ids) q = q.where('carrier_id', 'in', ids);
    const rows = await q.orderBy('id').limit(5000).execute();
    if (rows.length === 0) continue;
    const known = await lookup(ctx, carrier, rows.map((r) => r.carrier_id));
    const matched = rows.filter((r) => known(r.carrier_id) !== undefined);
    if (matched.length === 0) continue;
    applied += await applyDeliveryReports(ctx, matched.map((r) => ({ messageId: known(r.carrier_id)!, code: r.code, at: Number(r.at) })));
    await ctx.db.kysely.deleteFrom('smpp_receipts').where('id', 'in', matched.map((r) => r.id)).execute();
  }
  return applied;
}

/**
 * Housekeeping: carrier ids older than `idDays` (receipts come within the
 * validity period, at most a few days at SMSCs) and receipts that never
 * matched in that time are dropped, and reply parts older than a day.
 */
export async function pruneReceipts(ctx: AppContext, idDays = 7): Promise<void> {
  const cutoff = Date.now() - idDays * 86_400_000;
  await ctx.db.kysely.deleteFrom('smpp_ids').where('created_at', '<', cutoff).execute();
  await ctx.db.kysely.deleteFrom('smpp_receipts').where('at', '<', cutoff).execute();
  // Parts of a reply whose other parts never came (or a part repeated after its reply was recorded).
  await ctx.db.kysely.deleteFrom('smpp_reply_parts').where('received_at', '<', Date.now() - 86_400_000).execute();
}
