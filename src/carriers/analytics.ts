import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/engine.js';
import { formatLocalDate } from '../lib/time.js';
import { eventCountsSince, type EventCounts } from './event-counts.js';

export type FiguresBy = 'carrier' | 'prefix';

export interface CarrierFigures {
  name: string;
  /** With --by prefix: the carrier cost prefix the messages were handed over at ("" without a cost). */
  prefix?: string;
  submitted: number;
  delivered: number;
  failed: number;
  /** Handed over, no final receipt yet. */
  pending: number;
  /** delivered ÷ (delivered + failed); null without any final receipt. */
  delivery_rate: number | null;
  receipt_p50_ms: number | null;
  receipt_p95_ms: number | null;
  /** Hand-off answers counted by the connector (every process, per minute); null on a prefix row: they are the connector's. */
  throttled: number | null;
  refused: number | null;
  errors: number | null;
  demoted: boolean;
}

const MINUTE = 60_000;
const UNITS: Record<string, number> = { m: MINUTE, h: 60 * MINUTE, d: 1440 * MINUTE };

/** `--since 30m|1h|7d` in milliseconds; null when unreadable. */
export function parseSince(value: string): number | null {
  const m = /^(\d{1,5})([mhd])$/.exec(value.trim());
  if (!m || Number(m[1]) === 0) return null;
  return Number(m[1]) * UNITS[m[2]];
}

/** A group's prefix, and what the database groups by (PostgreSQL refuses a constant there). */
const grouping = (by: FiguresBy) => {
  const prefix = by === 'prefix' ? sql<string>`coalesce(cost_prefix, '')` : sql<string>`''`;
  return { prefix, keys: by === 'prefix' ? [sql`carrier`, prefix] : [sql`carrier`] };
};
const keyOf = (carrier: string, prefix: string) => `${carrier}\u0000${prefix}`;
const rate = (delivered: number, receipts: number) =>
  receipts === 0 ? null : Math.round((delivered / receipts) * 10_000) / 10_000;

/**
 * Per connector (or per connector and cost prefix), over the messages handed
 * to it since `since`: how many, their final receipts, the time from hand-off
 * to final receipt (nearest-rank percentiles), and what the connector counted
 * at hand-off (throttles, refusals, errors). By connector, every configured
 * one is listed, with zeros when it took nothing.
 */
export async function carrierFigures(
  db: Executor,
  since: number,
  by: FiguresBy = 'carrier',
): Promise<CarrierFigures[]> {
  const { prefix, keys } = grouping(by);
  const [carriers, counts, events, quality] = await Promise.all([
    db.selectFrom('carriers').select('name').orderBy('name').execute(),
    db
      .selectFrom('messages')
      .select((eb) => [
        'carrier',
        prefix.as('prefix'),
        eb.fn.countAll<number>().as('submitted'),
        eb.fn.sum<number>(sql`case when status = 'delivered' then 1 else 0 end`).as('delivered'),
        eb.fn.sum<number>(sql`case when status = 'undelivered' then 1 else 0 end`).as('failed'),
      ])
      .where('carrier', 'is not', null)
      .where('sent_at', '>=', since)
      .groupBy(keys)
      .execute(),
    eventCountsSince(db, since),
    db.selectFrom('carrier_quality').select(['carrier', 'demoted_at']).execute(),
  ]);
  const latencies =
    by === 'carrier'
      ? await carrierPercentiles(
          db,
          since,
          counts.map((c) => ({ carrier: c.carrier!, receipts: Number(c.delivered ?? 0) + Number(c.failed ?? 0) })),
        )
      : await receiptPercentiles(db, since, prefix, keys);
  const groups = counts.map((c) => ({ carrier: c.carrier!, prefix: String(c.prefix) }));
  if (by === 'carrier')
    for (const c of carriers)
      if (!groups.some((g) => g.carrier === c.name)) groups.push({ carrier: c.name, prefix: '' });
  groups.sort((a, b) => (a.carrier === b.carrier ? (a.prefix < b.prefix ? -1 : 1) : a.carrier < b.carrier ? -1 : 1));
  return groups.map(({ carrier, prefix: p }) => {
    const c = counts.find((x) => x.carrier === carrier && String(x.prefix) === p);
    const [submitted, delivered, failed] = [c?.submitted, c?.delivered, c?.failed].map((n) => Number(n ?? 0));
    const latency = latencies.get(keyOf(carrier, p));
    const counted: EventCounts | Record<keyof EventCounts, null> =
      by === 'prefix'
        ? { throttled: null, refused: null, errors: null }
        : (events.get(carrier) ?? { throttled: 0, refused: 0, errors: 0 });
    return {
      name: carrier,
      ...(by === 'prefix' ? { prefix: p } : {}),
      submitted,
      delivered,
      failed,
      pending: submitted - delivered - failed,
      delivery_rate: rate(delivered, delivered + failed),
      receipt_p50_ms: latency?.p50 ?? null,
      receipt_p95_ms: latency?.p95 ?? null,
      ...counted,
      demoted: quality.some((q) => q.carrier === carrier && q.demoted_at !== null),
    };
  });
}

/**
 * p50 and p95 per connector: one ordered read per percentile on the index by
 * connector and hand-off time (cheaper than sorting every connector's
 * receipts at once when there are few connectors).
 */
async function carrierPercentiles(db: Executor, since: number, groups: Array<{ carrier: string; receipts: number }>) {
  const out = new Map<string, { p50: number | null; p95: number | null }>();
  await Promise.all(
    groups.map(async ({ carrier, receipts }) => {
      const [p50, p95] = await Promise.all([0.5, 0.95].map((p) => latencyAt(db, carrier, since, receipts, p)));
      out.set(keyOf(carrier, ''), { p50, p95 });
    }),
  );
  return out;
}

async function latencyAt(db: Executor, carrier: string, since: number, n: number, p: number): Promise<number | null> {
  if (n === 0) return null;
  const latency = sql<number>`dlr_at - sent_at`;
  const row = await db
    .selectFrom('messages')
    .select(latency.as('ms'))
    .where('carrier', '=', carrier)
    .where('sent_at', '>=', since)
    .where('status', 'in', ['delivered', 'undelivered'])
    .orderBy(latency)
    .limit(1)
    .offset(Math.ceil(p * n) - 1)
    .executeTakeFirst();
  return row ? Math.max(0, Number(row.ms)) : null;
}

/**
 * p50 and p95 of hand-off → final receipt per connector and prefix, in one pass the database
 * sorts: the nearest rank ceil(p × n) of each group, in integers on both
 * engines ((n + 1) / 2 and (95n + 99) / 100).
 */
async function receiptPercentiles(
  db: Executor,
  since: number,
  prefix: RawBuilder<string>,
  keys: RawBuilder<unknown>[],
) {
  const partition = sql.join(keys);
  const { rows } = await sql<{ carrier: string; prefix: string; ms: number; rn: number; n: number }>`
    SELECT carrier, prefix, ms, rn, n FROM (
      SELECT carrier, ${prefix} AS prefix, dlr_at - sent_at AS ms,
        row_number() OVER (PARTITION BY ${partition} ORDER BY dlr_at - sent_at) AS rn,
        count(*) OVER (PARTITION BY ${partition}) AS n
      FROM messages
      WHERE carrier IS NOT NULL AND sent_at >= ${since} AND status IN ('delivered', 'undelivered')
    ) ranked
    WHERE rn = (n + 1) / 2 OR rn = (95 * n + 99) / 100`.execute(db);
  const out = new Map<string, { p50: number | null; p95: number | null }>();
  for (const r of rows) {
    const key = keyOf(r.carrier, String(r.prefix));
    const entry = out.get(key) ?? { p50: null, p95: null };
    const [rn, n, ms] = [Number(r.rn), Number(r.n), Math.max(0, Number(r.ms))];
    if (rn === Math.floor((n + 1) / 2)) entry.p50 = ms;
    if (rn === Math.floor((95 * n + 99) / 100)) entry.p95 = ms;
    out.set(key, entry);
  }
  return out;
}

const HOUR = 3_600_000;

/**
 * Per connector per slot since `since` (the panel's charts), oldest slot
 * first, by hand-off time: messages handed over, and of those the ones
 * delivered and failed so far. A slot is `step` milliseconds (a divisor of
 * an hour or whole hours), or a Mexico City day: hours folded into their day
 * (the zone's offsets are whole hours). `slots` are each slot's start.
 */
export async function carrierTimeline(db: Executor, since: number, step: number | 'day', now = Date.now()) {
  const bucketMs = step === 'day' ? HOUR : step;
  const slotKey = (ms: number) => (step === 'day' ? formatLocalDate(ms) : String(ms));
  const slots: number[] = [];
  const slotOf = new Map<string, number>();
  for (let b = Math.floor(since / bucketMs); b <= Math.floor(now / bucketMs); b++) {
    const key = slotKey(b * bucketMs);
    if (!slotOf.has(key)) slotOf.set(key, slots.push(b * bucketMs) - 1);
  }
  const bucket = sql<number>`sent_at / ${sql.lit(bucketMs)}`;
  const rows = await db
    .selectFrom('messages')
    .select((eb) => [
      'carrier',
      bucket.as('bucket'),
      eb.fn.countAll<number>().as('submitted'),
      eb.fn.sum<number>(sql`case when status = 'delivered' then 1 else 0 end`).as('delivered'),
      eb.fn.sum<number>(sql`case when status = 'undelivered' then 1 else 0 end`).as('failed'),
    ])
    .where('carrier', 'is not', null)
    .where('sent_at', '>=', since)
    .groupBy(['carrier', bucket])
    .execute();
  type Series = Record<'submitted' | 'delivered' | 'failed', number[]>;
  const series = new Map<string, Series>();
  for (const r of rows) {
    const index = slotOf.get(slotKey(Math.floor(Number(r.bucket)) * bucketMs));
    if (index === undefined) continue;
    let s = series.get(r.carrier!);
    if (!s) series.set(r.carrier!, (s = { submitted: [], delivered: [], failed: [] }));
    for (const k of ['submitted', 'delivered', 'failed'] as const) {
      if (s[k].length === 0) s[k] = slots.map(() => 0);
      s[k][index] += Number(r[k]);
    }
  }
  return { slots, series: new Map([...series].sort(([a], [b]) => (a < b ? -1 : 1))) };
}
