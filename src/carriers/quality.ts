import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Executor } from '../db/engine.js';
import { affected } from '../db/engine.js';

/** Rates are stored in ten-thousandths (8000 = 0.8). */
export const RATE_SCALE = 10_000;

/** A change of a connector's quality state, made by this process (a log line, a metric; what alerts read is the row). */
export interface QualityChange {
  carrier: string;
  change: 'demoted' | 'recovered';
  /** delivered ÷ (delivered + failed) that decided it; null when the threshold was removed. */
  rate: number | null;
  receipts: number;
  threshold: number | null;
}

type QualityRow = {
  carrier: string;
  min_delivery_rate: number | null;
  window_minutes: number;
  min_messages: number;
  demoted_at: number | null;
  changed_at: number | null;
};

/**
 * Evaluates every connector with a threshold, from figures the database
 * already keeps (no scan of messages for a healthy connector):
 * - a healthy one, from its receipt counts (carrier_receipt_counts, one row
 *   per 10 seconds) since the later of the window's start and its last
 *   change: demoted when at least `min_messages` receipts give a rate below
 *   the threshold;
 * - a demoted one, from the final receipts of the messages handed to it since
 *   the demotion (its probes, within the window): it recovers when at least
 *   `min_messages` of them give a rate at or above the threshold.
 * Each transition is one conditional UPDATE, so with several processes
 * evaluating at once exactly one reports it. Returns the connectors demoted
 * now and the changes this call made.
 */
export async function evaluateQuality(
  db: Kysely<Database>,
  now: number,
): Promise<{ demoted: Set<string>; changes: QualityChange[] }> {
  const rows = (await db.selectFrom('carrier_quality').selectAll().execute()) as QualityRow[];
  const demoted = new Set<string>();
  const changes: QualityChange[] = [];
  for (const q of rows) {
    const start = Math.max(now - q.window_minutes * 60_000, q.changed_at ?? 0);
    const outcome =
      q.demoted_at !== null
        ? await maybeRecover(db, q, start, now)
        : q.min_delivery_rate !== null
          ? await maybeDemote(db, q, start, now)
          : { demoted: false };
    if (outcome.change) changes.push(outcome.change);
    if (outcome.demoted) demoted.add(q.carrier);
  }
  return { demoted, changes };
}

/** Whether the connector is demoted after this evaluation, and the change this call made, if any. */
type Outcome = { demoted: boolean; change?: QualityChange };

async function maybeDemote(db: Kysely<Database>, q: QualityRow, start: number, now: number): Promise<Outcome> {
  const counts = await db
    .selectFrom('carrier_receipt_counts')
    .select((eb) => [eb.fn.sum<number>('delivered').as('delivered'), eb.fn.sum<number>('failed').as('failed')])
    .where('carrier', '=', q.carrier)
    .where('bucket', '>=', start)
    .executeTakeFirst();
  const [delivered, failed] = [Number(counts?.delivered ?? 0), Number(counts?.failed ?? 0)];
  const receipts = delivered + failed;
  if (!below(q, { delivered, receipts })) return { demoted: false };
  // Below over all receipts. When at least two accounts sent through it, the others' receipts hold it up whenever
  // they reach the minimum with any one account's left out (one account cannot demote it for the rest); with one
  // account, its receipts are all there is to judge by, and a carrier that fails them all is demoted.
  const families = await familyReceipts(db, q.carrier, start - q.window_minutes * 60_000, start);
  if (families.length >= 2 && leaveOneOut(families).some((rest) => holdsUp(q, rest))) return { demoted: false };
  const rate = Math.round((delivered * RATE_SCALE) / receipts);
  const result = await db
    .updateTable('carrier_quality')
    .set({ demoted_at: now, changed_at: now, delivery_rate: rate })
    .where('carrier', '=', q.carrier)
    .where('demoted_at', 'is', null)
    .executeTakeFirst();
  // Another process demoted it first: demoted all the same, its change to report.
  if (affected(result) === 0) return { demoted: true };
  return { demoted: true, change: change(q, 'demoted', rate, receipts) };
}

async function maybeRecover(db: Kysely<Database>, q: QualityRow, start: number, now: number): Promise<Outcome> {
  let rate: number | null = null;
  let receipts = 0;
  if (q.min_delivery_rate !== null) {
    // Its probes since the demotion, all of them or with any one account's left out: one account cannot hold it down.
    const families = await familyReceipts(db, q.carrier, start, null);
    const rests = families.length >= 2 ? leaveOneOut(families) : [];
    const back = [total(families), ...rests].find((r) => r.receipts >= q.min_messages && !below(q, r));
    if (!back) return { demoted: true };
    receipts = back.receipts;
    rate = Math.round((back.delivered * RATE_SCALE) / back.receipts);
  }
  const result = await db
    .updateTable('carrier_quality')
    .set({ demoted_at: null, changed_at: now, delivery_rate: rate })
    .where('carrier', '=', q.carrier)
    .where('demoted_at', '=', q.demoted_at)
    .executeTakeFirst();
  // Another process brought it back first.
  if (affected(result) === 0) return { demoted: false };
  return { demoted: false, change: change(q, 'recovered', rate, receipts) };
}

/** Final receipts: delivered ones among all. */
type Receipts = { delivered: number; receipts: number };

/** At least `min_messages` receipts whose rate is under the connector's minimum. */
const below = (q: QualityRow, r: Receipts) =>
  r.receipts >= q.min_messages && r.delivered * RATE_SCALE < q.min_delivery_rate! * r.receipts;

/**
 * The other accounts' receipts keep the connector when they are delivered at its minimum rate or above, however
 * few they are: a carrier that fails everyone's messages is demoted, one that delivers the others' is kept.
 */
const holdsUp = (q: QualityRow, r: Receipts) =>
  r.receipts > 0 && r.delivered * RATE_SCALE >= q.min_delivery_rate! * r.receipts;

const total = (families: Receipts[]): Receipts =>
  families.reduce((t, f) => ({ delivered: t.delivered + f.delivered, receipts: t.receipts + f.receipts }), {
    delivered: 0,
    receipts: 0,
  });

/** The receipts with each family's left out in turn. */
function leaveOneOut(families: Receipts[]): Receipts[] {
  const all = total(families);
  return families.map((f) => ({ delivered: all.delivered - f.delivered, receipts: all.receipts - f.receipts }));
}

/**
 * The final receipts of the messages handed to a connector since `sentSince`
 * (receipts since `receivedSince`, when given), per family: a top-level
 * account with its sub-accounts. Read only when the connector's rate is
 * under its minimum (the index on carrier and sent_at bounds it).
 */
async function familyReceipts(
  db: Kysely<Database>,
  carrier: string,
  sentSince: number,
  receivedSince: number | null,
): Promise<Receipts[]> {
  const rows = await db
    .selectFrom('messages as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select((eb) => [
      eb.fn.coalesce('a.parent_id', 'a.id').as('family'),
      eb.fn.countAll<number>().as('receipts'),
      eb.fn.sum<number>(sql`case when m.dlr_code = 0 then 1 else 0 end`).as('delivered'),
    ])
    .where('m.carrier', '=', carrier)
    .where('m.sent_at', '>=', sentSince)
    .where('m.stage', '=', 2)
    .where('m.dlr_code', 'is not', null)
    .$if(receivedSince !== null, (q) => q.where('m.dlr_at', '>=', receivedSince!))
    .groupBy((eb) => eb.fn.coalesce('a.parent_id', 'a.id'))
    .execute();
  return rows.map((r) => ({ delivered: Number(r.delivered ?? 0), receipts: Number(r.receipts) }));
}

function change(q: QualityRow, kind: QualityChange['change'], rate: number | null, receipts: number): QualityChange {
  const threshold = q.min_delivery_rate === null ? null : q.min_delivery_rate / RATE_SCALE;
  return { carrier: q.carrier, change: kind, rate: rate === null ? null : rate / RATE_SCALE, receipts, threshold };
}

/** The connectors demoted now, since when (what an operator alert reads: `carrier_demoted`). */
export const listDemoted = (db: Executor) =>
  db
    .selectFrom('carrier_quality')
    .select(['carrier', 'demoted_at', 'delivery_rate'])
    .where('demoted_at', 'is not', null)
    .execute();
