import { sql, type Expression, type SqlBool } from 'kysely';
import type { Executor } from '../../db/engine.js';

/** What a group of messages came to: counts, and money as exact integers (see service.ts for the scales). */
export interface MarginSums {
  key: string;
  parts: number;
  delivered: number;
  failed: number;
  /** Credit units × ten-thousandths of money per credit: 1e-8 of the currency. */
  revenue: bigint;
  /** Ten-thousandths of the currency: the costs known. */
  cost: bigint;
  /** Messages a carrier took with no cost known for them (left out of `cost`). */
  costUnknown: number;
}

/** `hour`: the hour since the epoch the message was accepted in (the service folds hours into Mexico City days). */
export type MarginKey = 'account' | 'carrier' | 'prefix' | 'hour' | 'none';

export interface MarginQuery {
  from: number;
  /** Exclusive. */
  to: number;
  /** Only these accounts; undefined: every account. */
  accountIds?: number[];
  /** The value of a credit for messages accepted before credit values were recorded. */
  defaultCreditValue: number;
}

const HOUR_MS = 3_600_000;

const big = (v: unknown): bigint => BigInt(String(v ?? 0));

/**
 * Sums the messages accepted in [from, to) (sandbox ones excluded) by `key`.
 * Revenue is what stayed charged: the price of each message not refunded,
 * times the credit value in force at its acceptance; cost is what its
 * connector's cost was when it took it (nothing for a message never handed over);
 * a message handed over without a cost known counts in `costUnknown`.
 * The database sums prices per credit value; the products are bigint here,
 * so no sum can overflow a 64-bit column.
 */
export async function sumMargins(db: Executor, q: MarginQuery, key: MarginKey): Promise<MarginSums[]> {
  const keyColumn = {
    account: sql<string>`cast(messages.account_id as varchar(20))`,
    carrier: sql<string>`coalesce(messages.carrier, '')`,
    prefix: sql<string>`coalesce(messages.price_prefix, '')`,
    hour: sql<string>`cast(messages.created_at / ${sql.lit(HOUR_MS)} as varchar(20))`,
    none: sql<string>`''`,
  }[key];
  let query = db
    .selectFrom('messages')
    .select([
      keyColumn.as('key'),
      'messages.credit_value',
      sql<number>`count(*)`.as('parts'),
      sql<number>`sum(case when messages.status = 'delivered' then 1 else 0 end)`.as('delivered'),
      sql<number>`sum(case when messages.status in ('undelivered', 'refused') then 1 else 0 end)`.as('failed'),
      sql<string>`sum(case when messages.refunded = 0 then messages.price_units else 0 end)`.as('charged'),
      sql<string>`sum(coalesce(messages.cost, 0))`.as('cost'),
      sql<number>`sum(case when messages.parts is not null and messages.cost is null then 1 else 0 end)`.as(
        'cost_unknown',
      ),
    ])
    .where('messages.created_at', '>=', q.from)
    .where('messages.created_at', '<', q.to)
    .where('messages.sandbox', '=', 0)
    .groupBy('messages.credit_value');
  if (key !== 'none') query = query.groupBy(keyColumn as Expression<SqlBool>);
  if (q.accountIds) query = query.where('messages.account_id', 'in', q.accountIds);
  const byKey = new Map<string, MarginSums>();
  for (const r of await query.execute()) {
    const k = String(r.key);
    const sums = byKey.get(k) ?? {
      key: k,
      parts: 0,
      delivered: 0,
      failed: 0,
      revenue: 0n,
      cost: 0n,
      costUnknown: 0,
    };
    sums.parts += Number(r.parts);
    sums.delivered += Number(r.delivered ?? 0);
    sums.failed += Number(r.failed ?? 0);
    sums.revenue += big(r.charged) * BigInt(r.credit_value ?? q.defaultCreditValue);
    sums.cost += big(r.cost);
    sums.costUnknown += Number(r.cost_unknown ?? 0);
    byKey.set(k, sums);
  }
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
