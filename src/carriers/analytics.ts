import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';

export interface CarrierFigures {
  name: string;
  submitted: number;
  delivered: number;
  failed: number;
  /** Handed over, no final receipt yet. */
  pending: number;
  /** delivered ÷ (delivered + failed); null without any final receipt. */
  delivery_rate: number | null;
  receipt_p50_ms: number | null;
  receipt_p95_ms: number | null;
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

/**
 * Per connector, over the messages handed to it since `since`: how many,
 * their final receipts, and the time from hand-off to final receipt
 * (nearest-rank percentiles, read by the database in order, both engines).
 * Every configured connector is listed, with zeros when it took nothing.
 */
export async function carrierFigures(db: Executor, since: number): Promise<CarrierFigures[]> {
  const [carriers, counts, quality] = await Promise.all([
    db.selectFrom('carriers').select('name').orderBy('name').execute(),
    db
      .selectFrom('messages')
      .select((eb) => [
        'carrier',
        eb.fn.countAll<number>().as('submitted'),
        eb.fn.sum<number>(sql`case when status = 'delivered' then 1 else 0 end`).as('delivered'),
        eb.fn.sum<number>(sql`case when status = 'undelivered' then 1 else 0 end`).as('failed'),
      ])
      .where('carrier', 'is not', null)
      .where('sent_at', '>=', since)
      .groupBy('carrier')
      .execute(),
    db.selectFrom('carrier_quality').select(['carrier', 'demoted_at']).execute(),
  ]);
  const names = [...new Set([...carriers.map((c) => c.name), ...counts.map((c) => c.carrier!)])].sort();
  return Promise.all(
    names.map(async (name) => {
      const c = counts.find((x) => x.carrier === name);
      const [submitted, delivered, failed] = [
        Number(c?.submitted ?? 0),
        Number(c?.delivered ?? 0),
        Number(c?.failed ?? 0),
      ];
      const receipts = delivered + failed;
      return {
        name,
        submitted,
        delivered,
        failed,
        pending: submitted - receipts,
        delivery_rate: receipts === 0 ? null : Math.round((delivered / receipts) * 10_000) / 10_000,
        receipt_p50_ms: await latencyAt(db, name, since, receipts, 0.5),
        receipt_p95_ms: await latencyAt(db, name, since, receipts, 0.95),
        demoted: quality.some((q) => q.carrier === name && q.demoted_at !== null),
      };
    }),
  );
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
    .offset(Math.max(0, Math.ceil(p * n) - 1))
    .executeTakeFirst();
  return row ? Math.max(0, Number(row.ms)) : null;
}

/** Final receipts per connector per slot of `stepMs` since `since` (the panel's chart), oldest slot first. */
export async function receiptTimeline(db: Executor, since: number, stepMs: number, now = Date.now()) {
  const first = Math.floor(since / stepMs);
  const slots = Array.from({ length: Math.floor(now / stepMs) - first + 1 }, (_, i) => (first + i) * stepMs);
  const slot = sql<number>`dlr_at / ${sql.lit(stepMs)}`;
  const rows = await db
    .selectFrom('messages')
    .select((eb) => [
      'carrier',
      slot.as('slot'),
      eb.fn.sum<number>(sql`case when status = 'delivered' then 1 else 0 end`).as('delivered'),
      eb.fn.sum<number>(sql`case when status = 'undelivered' then 1 else 0 end`).as('failed'),
    ])
    .where('carrier', 'is not', null)
    .where('sent_at', '>=', since)
    .where('status', 'in', ['delivered', 'undelivered'])
    .groupBy(['carrier', slot])
    .execute();
  const series = new Map<string, { delivered: number[]; failed: number[] }>();
  for (const r of rows) {
    const index = Math.floor(Number(r.slot)) - first;
    if (index < 0 || index >= slots.length) continue;
    let s = series.get(r.carrier!);
    if (!s) series.set(r.carrier!, (s = { delivered: slots.map(() => 0), failed: slots.map(() => 0) }));
    s.delivered[index] += Number(r.delivered);
    s.failed[index] += Number(r.failed);
  }
  return { slots, series };
}
