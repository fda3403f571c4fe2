import type { AppContext } from '../../context.js';
import { applyDeliveryReports } from '../../messaging/delivery.js';
import * as early from '../early-receipts.js';
import { idForms, normaliseId } from './receipts.js';

export type { Receipt } from '../early-receipts.js';

const CHUNK = 500;

/**
 * SMPP's carrier ids (smpp_ids). SMSCs disagree on the base: some give the
 * id in hex in submit_sm_resp and in decimal in the receipt, others the
 * reverse. The id as given wins, then its readings in the other base (idForms).
 */
export const smppIds: early.CarrierIdBook = {
  normalise: normaliseId,
  forms: idForms,
  async lookup(ctx, carrier, carrierIds) {
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
  },
  apply: applyDeliveryReports,
};

/**
 * Records the carrier id of each accepted segment (normalised, see
 * normaliseId), then applies any receipt that arrived before it.
 */
export async function recordSubmittedIds(ctx: AppContext, carrier: string, accepted: Array<{ messageId: number; ids: string[] }>): Promise<void> {
  const now = Date.now();
  const rows = accepted.flatMap((a) => a.ids.map((id) => ({ carrier, carrier_id: normaliseId(id), message_id: a.messageId, created_at: now })));
  for (let i = 0; i < rows.length; i += CHUNK) await ctx.db.kysely.insertInto('smpp_ids').values(rows.slice(i, i + CHUNK)).execute();
  await early.applyReceiptsFor(ctx, smppIds, carrier, rows.map((r) => r.carrier_id));
}

/** Applies the receipts whose message is known; keeps the others until their id is recorded (early-receipts.ts). */
export async function storeReceipts(ctx: AppContext, carrier: string, receipts: early.Receipt[]): Promise<void> {
  await early.storeReceipts(ctx, smppIds, carrier, receipts);
}

/** Waiting receipts of `carrier` whose message is now known, applied and forgotten. */
export const applyWaitingReceipts = (ctx: AppContext, carrier: string, carrierIds?: string[]) => early.applyWaitingReceipts(ctx, smppIds, carrier, carrierIds);

/**
 * Housekeeping: carrier ids older than `idDays` (receipts come within the
 * validity period, at most a few days at SMSCs) and receipts that never
 * matched in that time are dropped (those of provider connectors too), and
 * reply parts older than a day.
 */
export async function pruneReceipts(ctx: AppContext, idDays = 7): Promise<void> {
  const cutoff = Date.now() - idDays * 86_400_000;
  await ctx.db.kysely.deleteFrom('smpp_ids').where('created_at', '<', cutoff).execute();
  await ctx.db.kysely.deleteFrom('smpp_receipts').where('at', '<', cutoff).execute();
  // Parts of a reply whose other parts never came (or a part repeated after its reply was recorded).
  await ctx.db.kysely.deleteFrom('smpp_reply_parts').where('received_at', '<', Date.now() - 86_400_000).execute();
}
