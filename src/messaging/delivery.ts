import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database } from '../db/schema.js';
import { DELIVER_JOB, recordEvents, type NewEvent } from '../webhooks/index.js';
import { formatCompact } from '../lib/time.js';
import { countMessages, observeReceipt, pipelineMetrics } from './metrics.js';
import { countReceipts } from './receipt-counts.js';
import type { Channel } from './types.js';
import { queueReceipts } from './customer-notices.js';

export interface DeliveryReport {
  messageId: number;
  /** Delivery status code 0–12 (spec, Events). */
  code: number;
  at: number;
  /** The receipt as the carrier wrote it (bounded), kept on the message for the trace. */
  stat?: string | null;
  err?: string | null;
}

// Reports come in batches sharing one time: format it once (time-zone formatting is costly).
let lastAt = NaN;
let lastCompact = '';
const compactTime = (at: number) => (at === lastAt ? lastCompact : ((lastAt = at), (lastCompact = formatCompact(at))));

export function confirmationPayload(
  m: { account_id: number; reference: string; number: string; extra_params: string | null },
  code: number,
  at: number,
): NewEvent {
  return {
    accountId: m.account_id,
    type: 'confirmation',
    reference: m.reference,
    payload: {
      type: 'confirmation',
      reference: m.reference,
      status: String(code),
      number: m.number,
      date: compactTime(at),
      extra_params: m.extra_params ?? '',
    },
  };
}

/** A carrier's status outside the spec's 0–12 is recorded as 5, unknown. */
const validStatus = (code: number) => (Number.isInteger(code) && code >= 0 && code <= 12 ? code : 5);

/**
 * Applies carrier delivery reports: each message takes its first final
 * status only (stage < 2), so a report that arrives twice or after another
 * changes nothing twice. The confirmation event is written in the same
 * transaction. Sandbox messages never get here (they never reach a carrier).
 */
export async function applyDeliveryReports(
  ctx: Pick<AppContext, 'db' | 'worker' | 'metrics'>,
  reports: DeliveryReport[],
): Promise<number> {
  if (reports.length === 0) return 0;
  const { updated, deliveries } = await ctx.db.kysely.transaction().execute(async (trx) => {
    const updated =
      ctx.db.engine === 'postgres' ? await applyOnPostgres(trx, reports) : await applyByCode(trx, reports);
    const deliveries = await recordEvents(
      trx,
      updated.map((m) => confirmationPayload(m, m.code, m.at)),
    );
    await countReceipts(trx, updated);
    // Customers bound over SMPP hear of it as a deliver_sm, kept with the event it tells of.
    await queueReceipts(trx, updated);
    return { updated, deliveries };
  });
  const applied = updated.length;
  countReports(ctx, updated);
  // The confirmation events' delivery jobs are due now: wake their lane rather than wait for a poll (only it: each
  // lane woken runs a claim, and receipts come in every few milliseconds under load).
  if (deliveries > 0) ctx.worker.nudge(DELIVER_JOB);
  return applied;
}

type Applied = {
  id: number;
  meta: string | null;
  account_id: number;
  reference: string;
  number: string;
  extra_params: string | null;
  channel: Channel;
  carrier: string | null;
  /** The hand-off time (the report's own time when the report overtook the hand-off's record). */
  sent_at: number | null;
  code: number;
  at: number;
};

function countReports(ctx: Pick<AppContext, 'metrics'>, updated: Applied[]): void {
  if (updated.length === 0) return;
  const metrics = pipelineMetrics(ctx.metrics.registry);
  countMessages(
    metrics,
    updated.filter((m) => m.code === 0),
    'delivered',
  );
  countMessages(
    metrics,
    updated.filter((m) => m.code !== 0),
    'undelivered',
  );
  for (const m of updated) observeReceipt(metrics, m);
}

/** A message reported twice in one batch takes the first report, as it would across batches. */
function firstPerMessage(reports: DeliveryReport[]): DeliveryReport[] {
  const seen = new Set<number>();
  return reports.filter((r) => !seen.has(r.messageId) && seen.add(r.messageId));
}

/**
 * PostgreSQL: one UPDATE … FROM unnest(ids, codes, times) per 5,000 reports,
 * whatever mix of codes they carry. The arrays are three parameters, so the
 * statement text is the same for every batch and nothing is bound per message.
 */
async function applyOnPostgres(trx: Transaction<Database>, reports: DeliveryReport[]): Promise<Applied[]> {
  // In id order, as every other writer of several messages takes them: no two transactions wait on each other.
  const all = firstPerMessage(reports).sort((a, b) => a.messageId - b.messageId);
  const updated: Applied[] = [];
  for (let i = 0; i < all.length; i += 5000) {
    const batch = all.slice(i, i + 5000);
    const { rows } = await sql<Applied>`
      UPDATE messages AS m
      SET stage = 2, status = CASE WHEN r.code = 0 THEN 'delivered' ELSE 'undelivered' END, dlr_code = r.code, dlr_at = r.at,
        receipt_stat = r.stat, receipt_err = r.err,
        -- A report may overtake the record of the submission: the message was sent by then.
        sent_at = COALESCE(m.sent_at, r.at)
      FROM unnest(${batch.map((r) => r.messageId)}::bigint[], ${batch.map((r) => validStatus(r.code))}::int[], ${batch.map((r) => r.at)}::bigint[],
        ${batch.map((r) => r.stat ?? null)}::text[], ${batch.map((r) => r.err ?? null)}::text[]) AS r(id, code, at, stat, err)
      WHERE m.id = r.id AND m.stage < 2 AND m.sandbox = 0
      RETURNING m.id, m.meta, m.account_id, m.reference, m.number, m.extra_params, m.channel, m.carrier, m.sent_at, r.code, r.at`.execute(
      trx,
    );
    updated.push(...rows);
  }
  return updated;
}

/**
 * SQLite (no array parameters): one UPDATE per status code (and raw receipt)
 * and 1,000 messages; each group takes its first report's time.
 */
async function applyByCode(trx: Transaction<Database>, reports: DeliveryReport[]): Promise<Applied[]> {
  const byCode = new Map<string, { code: number; group: DeliveryReport[] }>();
  for (const r of reports) {
    const code = validStatus(r.code);
    const key = r.stat || r.err ? `${code}\u0000${r.stat ?? ''}\u0000${r.err ?? ''}` : String(code);
    let entry = byCode.get(key);
    if (!entry) byCode.set(key, (entry = { code, group: [] }));
    entry.group.push(r);
  }
  const updated: Applied[] = [];
  for (const { code, group } of byCode.values()) {
    const at = group[0].at;
    const { stat = null, err = null } = group[0];
    for (let i = 0; i < group.length; i += 1000) {
      const rows = await trx
        .updateTable('messages')
        // A report may overtake the record of the submission: the message was sent by then.
        .set((eb) => ({
          stage: 2,
          status: code === 0 ? 'delivered' : 'undelivered',
          dlr_code: code,
          dlr_at: at,
          receipt_stat: stat,
          receipt_err: err,
          sent_at: eb.fn.coalesce('sent_at', eb.val(at)),
        }))
        .where(
          'id',
          'in',
          group.slice(i, i + 1000).map((r) => r.messageId),
        )
        .where('stage', '<', 2)
        .where('sandbox', '=', 0)
        .returning(['id', 'meta', 'account_id', 'reference', 'number', 'extra_params', 'channel', 'carrier', 'sent_at'])
        .execute();
      for (const m of rows) updated.push({ ...m, code, at });
    }
  }
  return updated;
}
