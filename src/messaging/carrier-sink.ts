import type { CarrierIds, CarrierInbox, CoreSink, ReplyPart, ScheduledReport } from './inbound-ports.js';
import type { AppContext } from '../context.js';
import type { Db } from '../db/engine.js';
import { enqueue } from '../jobs/queue.js';
import { recordInboundReply } from './inbound-replies.js';
import { pruneReceiptCounts } from './receipt-counts.js';
import { applyWaitingReceipts, idBook, pruneReceipts, recordCarrierIds, storeReceipts } from './receipts.js';

/** The job that applies the simulator's scheduled delivery reports (registered by messaging/feature.ts). */
export const SIMULATOR_DLR_JOB = 'simulator.dlr';

/** What connectors receive, kept by the messaging core: handed to the carrier registry by src/app/boot.ts. */
export function carrierInbox(ctx: AppContext): CarrierInbox {
  return {
    sink: (ids) => carrierSink(ctx, ids),
    applyWaiting: (ids, carrier) => applyWaitingReceipts(ctx, idBook(ids), carrier),
    prune: async () => {
      await pruneReceiptCounts(ctx.db.kysely, Date.now());
      await pruneReceipts(ctx.db);
    },
  };
}

/**
 * The sink connectors of one kind hand what they receive to: carrier ids and
 * receipts kept by the kind's id book (receipts.ts), replies recorded by
 * inbound-replies.ts, scheduled reports queued as a job. Refused provider
 * requests are the carriers' own (carriers/registry.ts adds them).
 */
export function carrierSink(ctx: AppContext, ids: CarrierIds): CoreSink {
  const book = idBook(ids);
  return {
    accepted: (carrier, accepted) => recordCarrierIds(ctx, book, carrier, accepted),
    receipts: async (carrier, receipts) => void (await storeReceipts(ctx, book, carrier, receipts)),
    async reply(r) {
      const owners = r.owners ?? (await senderOwners(ctx.db, r.destination));
      await recordInboundReply(ctx, { ...r, owners });
    },
    replyPart: (part) => reassemble(ctx.db, part),
    firstSeen: (carrier, incomingId) => firstSeen(ctx.db, carrier, incomingId),
    scheduleReports: (reports, at) => scheduleReports(ctx.db, reports, at),
  };
}

/** One job per batch, run at `at` by the messaging feature (SIMULATOR_DLR_JOB); its payload keeps [id, code] pairs. */
async function scheduleReports(db: Db, reports: ScheduledReport[], at: number): Promise<void> {
  const payload = { reports: reports.map((r) => [r.messageId, r.code]) };
  await enqueue(db.kysely, SIMULATOR_DLR_JOB, payload, { runAt: at, maxAttempts: 20 });
}

/** The accounts that registered this address as a sender (`senders add`): a reply to it is theirs first. */
async function senderOwners(db: Db, destination: string): Promise<number[]> {
  if (destination === '') return [];
  const rows = await db.kysely.selectFrom('senders').select('account_id').where('name', '=', destination).execute();
  return rows.map((s) => Number(s.account_id));
}

/**
 * Parts live in the database (a reply's parts may come over different binds
 * or processes); the process whose delete removes all of them records the
 * reply, so it is recorded once.
 */
async function reassemble(engine: Db, p: ReplyPart): Promise<string | null> {
  if (p.sequence < 1 || p.sequence > p.total) return null;
  const db = engine.kysely;
  const key = { carrier: p.carrier, source: p.source, reference: p.reference };
  const inserted = await db
    .insertInto('smpp_reply_parts')
    .values({
      ...key,
      sequence: p.sequence,
      total: p.total,
      destination: p.destination,
      text: p.text,
      received_at: p.at,
    })
    .onConflict((oc) => oc.columns(['carrier', 'source', 'reference', 'sequence']).doNothing())
    .returning('sequence')
    .executeTakeFirst();
  if (!inserted) return null; // the SMSC sent this part again
  const parts = () =>
    db
      .selectFrom('smpp_reply_parts')
      .select('sequence')
      .where('carrier', '=', key.carrier)
      .where('source', '=', key.source)
      .where('reference', '=', key.reference);
  if ((await parts().execute()).length < p.total) return null;
  const taken = await db
    .deleteFrom('smpp_reply_parts')
    .where('carrier', '=', key.carrier)
    .where('source', '=', key.source)
    .where('reference', '=', key.reference)
    .returning(['sequence', 'text'])
    .execute();
  if (taken.length < p.total) return null;
  return taken
    .sort((a, b) => a.sequence - b.sequence)
    .map((t) => t.text)
    .join('');
}

/** Incoming message ids are kept as provider_message_ids of `<carrier>#in`, so a redelivered webhook is taken once. */
async function firstSeen(db: Db, carrier: string, incomingId: string): Promise<boolean> {
  const fresh = await db.kysely
    .insertInto('provider_message_ids')
    .values({ carrier: `${carrier}#in`, carrier_id: incomingId, message_id: 0, created_at: Date.now() })
    .onConflict((oc) => oc.columns(['carrier', 'carrier_id']).doNothing())
    .executeTakeFirst();
  return Number(fresh.numInsertedOrUpdatedRows ?? 0n) > 0;
}
