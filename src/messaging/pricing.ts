import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';
import { compiledOnce } from '../db/prepared.js';
import { toUnits } from '../accounts/credits.js';
import type { Channel, TrafficSetting } from './types.js';

/**
 * Default price per message, in credits. An account can have its own
 * (account_prices; CLI `accounts set --price-<channel>`), and prices by
 * destination prefix come before or after it (prices.ts).
 */
export const DEFAULT_PRICES: Record<Channel, number> = {
  sms: 1,
  rcs: 1.5,
  chatapp: 0.5,
  voice: 2,
};

// Scalar subqueries, not LEFT JOINs: on SQLite the joins cost some 20 µs a call (a Bloom filter built for each run),
// the subqueries a few; every send reads this.
const channelPricesOf = compiledOnce((db, accountId: number, channel: Channel) =>
  db
    .selectFrom('accounts')
    .select((eb) => {
      // The family's traffic settings are its top account's (sub-accounts follow their parent).
      const family = (column: 'traffic_class' | 'validity_minutes') =>
        eb
          .selectFrom('traffic_settings')
          .select(`traffic_settings.${column}`)
          .where('traffic_settings.account_id', '=', sql<number>`coalesce(accounts.parent_id, accounts.id)`);
      const price = (of: 'id' | 'parent_id') =>
        eb
          .selectFrom('account_prices')
          .select('account_prices.units')
          .whereRef('account_prices.account_id', '=', `accounts.${of}`)
          .where('account_prices.channel', '=', channel);
      return [
        'accounts.parent_id',
        'accounts.credits',
        price('id').as('own_units'),
        price('parent_id').as('parent_units'),
        'accounts.credit_value',
        eb
          .selectFrom('accounts as parent')
          .select('parent.credit_value')
          .whereRef('parent.id', '=', 'accounts.parent_id')
          .as('parent_credit_value'),
        family('traffic_class').as('family_class'),
        family('validity_minutes').as('family_validity'),
      ];
    })
    .where('accounts.id', '=', accountId),
);

export interface AccountPricing {
  parentId: number | null;
  /** The account's channel price, else its parent's, in credit units; null when neither set one. */
  channelUnits: number | null;
  /** Money per credit in ten-thousandths: the account's, else its parent's; null when neither set one (CREDIT_VALUE). */
  creditValue: number | null;
  /** The balance as this statement read it, in units (a snapshot: the debit decides). */
  credits: number;
  /** The family's pinned traffic class and default validity (traffic_settings). */
  traffic: FamilyTraffic;
}

export interface FamilyTraffic {
  pinned: TrafficSetting;
  validityMinutes: number | null;
}

/** What prices the account's messages on a channel besides the prefix lists: its parent and its channel price. */
export async function accountPricing(db: Executor, accountId: number, channel: Channel): Promise<AccountPricing> {
  const row = (await channelPricesOf(db, accountId, channel)).rows[0];
  const parentId = row?.parent_id ?? null;
  const units = row?.own_units ?? row?.parent_units;
  const creditValue = row?.credit_value ?? row?.parent_credit_value ?? null;
  return {
    parentId: parentId === null ? null : Number(parentId),
    channelUnits: units == null ? null : Number(units),
    creditValue: creditValue === null ? null : Number(creditValue),
    credits: Number(row?.credits ?? 0),
    traffic: {
      pinned: (row?.family_class as TrafficSetting | null) ?? 'auto',
      validityMinutes: row?.family_validity == null ? null : Number(row.family_validity),
    },
  };
}

/** The account's own channel price, else its parent's (a sub-account inherits), else the default. */
export async function priceUnits(db: Executor, accountId: number, channel: Channel): Promise<number> {
  return (await accountPricing(db, accountId, channel)).channelUnits ?? toUnits(DEFAULT_PRICES[channel]);
}

export async function setPrice(db: Executor, accountId: number, channel: Channel, units: number): Promise<void> {
  await db
    .insertInto('account_prices')
    .values({ account_id: accountId, channel, units })
    .onConflict((oc) => oc.columns(['account_id', 'channel']).doUpdateSet({ units }))
    .execute();
}
