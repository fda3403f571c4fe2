import type { AppContext } from '../../context.js';
import { applyDeliveryReports } from '../../messaging/delivery.js';
import { idForms, normaliseId } from './receipts.js';

const CHUNK = 400;

/**
 * Records the carrier ids of accepted messages (each under its hex and
 * decimal readings, see idForms), then applies any receipt that arrived
 * before them.
 */
export async function recordSubmittedIds(ctx: AppContext, carrier: string, accepted: Array<{ messageId: number; ids: string[] }>): Promise<void> {
  const now = Date.now();
  const rows = accepted.flatMap((a) => a.ids.flatMap((id) => idForms(id).map((form, i) => ({ carrier, carrier_id: form, message_id: a.messageId, exact: i === 0 ? 1 : 0, created_at: now }))));
  for (let i = 0; i < rows.length; i += CHUNK) await ctx.db.kysely.insertInto('smpp_ids').values(rows.slice(i, i + CHUNK)).execute();
  await applyWaitingReceipts(ctx, carrier, [...new Set(rows.map((r) => r.carrier_id))]);
}

export interface Receipt {
  carrierId: string;
  code: number;
  at: number;
}

/**
 * Keeps receipts (durably, before the SMSC gets deliver_sm_resp) and applies
 * those whose message is known. A receipt whose id is not known yet (it
 * overtook its submit_sm_resp, or another process submitted the message and
 * has not recorded the id yet) waits in smpp_receipts until it is.
 */
export async function storeReceipts(ctx: AppContext, carrier: string, receipts: Receipt[]): Promise<void> {
  if (receipts.length === 0) return;
  const rows = receipts.map((r) => ({ carrier, carrier_id: normaliseId(r.carrierId), code: r.code, at: r.at }));
  for (let i = 0; i < rows.length; i += CHUNK) await ctx.db.kysely.insertInto('smpp_receipts').values(rows.slice(i, i + CHUNK)).execute();
  await applyWaitingReceipts(ctx, carrier, [...new Set(rows.map((r) => r.carrier_id))]);
}

/**
 * Applies waiting receipts of `carrier` (those with the given ids, or all)
 * whose message id is now known, then forgets them. Applying twice is
 * harmless (a message takes its first final status only), so processes
 * racing here change nothing twice. An id matched under its own form wins
 * over a match under its reading in the other base.
 */
export async function applyWaitingReceipts(ctx: AppContext, carrier: string, carrierIds?: string[]): Promise<number> {
  let applied = 0;
  const all = carrierIds ?? [null];
  for (let i = 0; i < all.length; i += CHUNK) {
    const ids = carrierIds ? carrierIds.slice(i, i + CHUNK) : null;
    let q = ctx.db.kysely
      .selectFrom('smpp_receipts as r')
      .innerJoin('smpp_ids as s', (j) => j.onRef('s.carrier', '=', 'r.carrier').onRef('s.carrier_id', '=', 'r.carrier_id'))
      .select(['r.id', 'r.code', 'r.at', 's.message_id', 's.exact'])
      .where('r.carrier', '=', carrier);
    if (ids) q = q.where('r.carrier_id', 'in', ids);
    const rows = await q.orderBy('r.id').limit(5000).execute();
    if (rows.length === 0) continue;
    const best = new Map<number, (typeof rows)[number]>();
    for (const row of rows) {
      const seen = best.get(row.id);
      if (!seen || (row.exact > seen.exact)) best.set(row.id, row);
    }
    applied += await applyDeliveryReports(ctx, [...best.values()].map((r) => ({ messageId: Number(r.message_id), code: r.code, at: Number(r.at) })));
    await ctx.db.kysely.deleteFrom('smpp_receipts').where('id', 'in', [...best.keys()]).execute();
  }
  return applied;
}

/**
 * Housekeeping: carrier ids older than `idDays` (receipts come within the
 * validity period, 2 days by default at most SMSCs) and receipts that never
 * matched after the same time are dropped.
 */
export async function pruneReceipts(ctx: AppContext, idDays = 7): Promise<void> {
  const cutoff = Date.now() - idDays * 86_400_000;
  await ctx.db.kysely.deleteFrom('smpp_ids').where('created_at', '<', cutoff).execute();
  await ctx.db.kysely.deleteFrom('smpp_receipts').where('at', '<', cutoff).execute();
}
