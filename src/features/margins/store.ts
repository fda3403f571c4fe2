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
  /** Ten-thousandths of the currency. */
  cost: bigint;
}

export type MarginKey = 'account' | 'carrier' | 'prefix' | 'none';

export interface MarginQuery {
  from: number;
  /** Exclusive. */
  to: number;
  /** Only these accounts; undefined: every account. */
  accountIds?: number[];
  /** The value of a credit for messages accepted before credit values were recorded. */
  defaultCreditValue: number;
}

const big = (v: unknown): bigint => BigInt(String(v ?? 0));

/**
 * Sums the messages accepted in [from, to) (sandbox ones excluded) by `key`.
 * Revenue is what stayed charged: the price of each message not refunded,
 * times the credit value in force at its acceptance; cost is what its
 * connector's cost was when it took it (nothing for a message never handed over).
 */
export async function sumMargins(db: Executor, q: MarginQuery, key: MarginKey): Promise<MarginSums[]> {
  const keyColumn = {
    account: sql<string>`cast(messages.account_id as varchar(20))`,
    carrier: sql<string>`coalesce(messages.carrier, '')`,
    prefix: sql<string>`coalesce(messages.price_prefix, '')`,
    none: sql<string>`''`,
  }[key];
  let query = db
    .selectFrom('messages')
    .select([
      keyColumn.as('key'),
      sql<number>`count(*)`.as('parts'),
      sql<number>`sum(case when messages.status = 'delivered' then 1 else 0 end)`.as('delivered'),
      sql<number>`sum(case when messages.status in ('undelivered', 'refused') then 1 else 0 end)`.as('failed'),
      sql<string>`sum(case when messages.refunded = 0 then messages.price_units * coalesce(messages.credit_value, ${q.defaultCreditValue}) else 0 end)`.as(
        'revenue',
      ),
      sql<string>`sum(coalesce(messages.cost, 0))`.as('cost'),
    ])
    .where('messages.created_at', '>=', q.from)
    .where('messages.created_at', '<', q.to)
    .where('messages.sandbox', '=', 0);
  if (key !== 'none') query = query.groupBy(keyColumn as Expression<SqlBool>).orderBy('key');
  if (q.accountIds) query = query.where('messages.account_id', 'in', q.accountIds);
  // Without a key one row always comes back, with no messages in it for an empty period.
  const rows = (await query.execute()).filter((r) => Number(r.parts) > 0);
  return rows.map((r) => ({
    key: String(r.key),
    parts: Number(r.parts),
    delivered: Number(r.delivered ?? 0),
    failed: Number(r.failed ?? 0),
    revenue: big(r.revenue),
    cost: big(r.cost),
  }));
}
