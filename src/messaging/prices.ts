import { toUnits } from '../accounts/credits.js';
import type { Executor } from '../db/engine.js';
import { bumpRevision, RevisionedCache } from '../db/revisioned.js';
import { PrefixTable } from '../lib/prefix-table.js';
import { accountPricing, DEFAULT_PRICES, type FamilyTraffic } from './pricing.js';
import type { PriceLookup } from './ports.js';
import type { Channel } from './types.js';

/** The account_id of the deployment's own prefix prices (`prices set` without `--email`). */
export const DEPLOYMENT = 0;

const group = (accountId: number, channel: Channel) => `${accountId}:${channel}`;

async function loadPrices(db: Executor): Promise<PrefixTable<number>> {
  const table = new PrefixTable<number>();
  const rows = await db.selectFrom('prices').select(['account_id', 'channel', 'prefix', 'units']).execute();
  for (const r of rows) table.set(group(Number(r.account_id), r.channel), r.prefix, Number(r.units));
  return table;
}

/**
 * Every prefix price (the deployment's and each account's), held by each
 * process and reloaded within CARRIER_POLL_MS of a change (see
 * RevisionedCache). One per process, built by src/app/boot.ts (ctx.prices).
 */
export class PriceBook implements PriceLookup {
  private readonly cache: RevisionedCache<PrefixTable<number>>;

  constructor(pollMs: number) {
    this.cache = new RevisionedCache('prices', pollMs, loadPrices);
  }

  table(db: Executor): Promise<PrefixTable<number>> {
    return this.cache.current(db);
  }
}

/** A recipient's price in credit units, and the prefix price that set it (null: a channel or default price). */
export interface Priced {
  units: number;
  prefix: string | null;
}

/**
 * The price of one message to each number, by the precedence of the operator
 * contract: the account's own prefix prices (longest prefix), then its
 * parent's; else the account's channel price (its own, then its parent's);
 * else the deployment's prefix prices; else the default channel price.
 */
export async function pricesFor(
  db: Executor,
  book: PriceLookup,
  accountId: number,
  channel: Channel,
  numbers: readonly string[],
): Promise<{ prices: Priced[]; creditValue: number | null; credits: number; traffic: FamilyTraffic }> {
  const { parentId, channelUnits, creditValue, credits, traffic } = await accountPricing(db, accountId, channel);
  const table = await book.table(db);
  const scopes = [accountId, ...(parentId === null ? [] : [parentId])].map((id) => group(id, channel));
  const deployment = group(DEPLOYMENT, channel);
  const fallback = toUnits(DEFAULT_PRICES[channel]);
  const prices = numbers.map((number): Priced => {
    for (const scope of scopes) {
      const hit = table.match(scope, number);
      if (hit) return { units: hit.value, prefix: hit.prefix };
    }
    if (channelUnits !== null) return { units: channelUnits, prefix: null };
    const hit = table.match(deployment, number);
    return hit ? { units: hit.value, prefix: hit.prefix } : { units: fallback, prefix: null };
  });
  return { prices, creditValue, credits, traffic };
}

export interface PrefixPrice {
  accountId: number;
  channel: Channel;
  prefix: string;
  units: number;
}

export async function setPrefixPrice(db: Executor, p: PrefixPrice): Promise<void> {
  await db
    .insertInto('prices')
    .values({ account_id: p.accountId, channel: p.channel, prefix: p.prefix, units: p.units })
    .onConflict((oc) => oc.columns(['account_id', 'channel', 'prefix']).doUpdateSet({ units: p.units }))
    .execute();
  await bumpRevision(db, 'prices');
}

/** Removes one prefix price; false when there was none. */
export async function removePrefixPrice(db: Executor, p: Omit<PrefixPrice, 'units'>): Promise<boolean> {
  const gone = await db
    .deleteFrom('prices')
    .where('account_id', '=', p.accountId)
    .where('channel', '=', p.channel)
    .where('prefix', '=', p.prefix)
    .executeTakeFirst();
  if (Number(gone.numDeletedRows) === 0) return false;
  await bumpRevision(db, 'prices');
  return true;
}

/** Prefix prices, of one account or (undefined) of every account and the deployment. */
export async function listPrefixPrices(db: Executor, accountId?: number): Promise<PrefixPrice[]> {
  let query = db
    .selectFrom('prices')
    .select(['account_id', 'channel', 'prefix', 'units'])
    .orderBy('account_id')
    .orderBy('channel')
    .orderBy('prefix');
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  const rows = await query.execute();
  return rows.map((r) => ({
    accountId: Number(r.account_id),
    channel: r.channel,
    prefix: r.prefix,
    units: Number(r.units),
  }));
}
