// The panel's own queries on messages: the overview's figures. Pages read them through stats.ts.
import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';
import { formatLocalDate, parseLocal } from '../lib/time.js';
import { groupOf, lastLocalDays, STATUS_GROUPS, type StatusGroup } from './status-groups.js';
import type { MessageStatus } from '../messaging/tables.js';

export interface DailyStatus {
  days: string[];
  series: Record<StatusGroup, number[]>;
}

/** Messages of the account per local day of the last `count` days and per status group: one grouped query. */
export async function dailyStatusCounts(db: Executor, accountId: number, count = 30): Promise<DailyStatus> {
  const { days, bounds } = lastLocalDays(count);
  // The day index of created_at, from the exact local midnights.
  const cases = bounds.slice(1).map((b, i) => sql`when created_at < ${b} then ${i}`);
  const dayIndex = sql<number>`case ${sql.join(cases, sql` `)} end`;
  const rows = await db
    .selectFrom('messages')
    .select([dayIndex.as('day'), 'status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', bounds[0])
    .where('created_at', '<', bounds[bounds.length - 1])
    // By position: the CASE carries parameters, which PostgreSQL would not match to the select's.
    .groupBy([sql`1`, sql`2`])
    .execute();
  const series = Object.fromEntries(STATUS_GROUPS.map((g) => [g, days.map(() => 0)])) as Record<StatusGroup, number[]>;
  for (const r of rows) series[groupOf(r.status as MessageStatus)][Number(r.day)] += Number(r.n);
  return { days, series };
}

export interface Totals {
  today: number;
  month: number;
  /** Delivered / (delivered + failed) this month, percent, or null before any final status. */
  deliveryRate: number | null;
}

export async function messageTotals(db: Executor, accountId: number, now = Date.now()): Promise<Totals> {
  const today = formatLocalDate(now);
  const dayStart = parseLocal(today)!;
  const monthStart = parseLocal(`${today.slice(0, 8)}01`)!;
  const rows = await db
    .selectFrom('messages')
    .select([
      'status',
      (eb) => eb.fn.countAll<number>().as('n'),
      sql<number>`sum(case when created_at >= ${dayStart} then 1 else 0 end)`.as('today'),
    ])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', monthStart)
    .where('sandbox', '=', 0)
    .groupBy('status')
    .execute();
  let month = 0;
  let todayCount = 0;
  let delivered = 0;
  let failed = 0;
  for (const r of rows) {
    month += Number(r.n);
    todayCount += Number(r.today ?? 0);
    const group = groupOf(r.status as MessageStatus);
    if (group === 'delivered') delivered += Number(r.n);
    if (group === 'failed') failed += Number(r.n);
  }
  const rate = delivered + failed === 0 ? null : Math.round((delivered / (delivered + failed)) * 1000) / 10;
  return { today: todayCount, month, deliveryRate: rate };
}
