import type { Executor } from '../db/engine.js';
import { compiledOnce } from '../db/prepared.js';
import { toUnits } from '../accounts/credits.js';
import type { Channel } from './types.js';

/**
 * Default price per message, in credits. An account can have its own
 * (account_prices; CLI `accounts set --price-<channel>`).
 */
export const DEFAULT_PRICES: Record<Channel, number> = {
  sms: 1,
  rcs: 1.5,
  chatapp: 0.5,
  voice: 2,
};

const pricesOf = compiledOnce((db, accountId: number, channel: Channel) =>
  db
    .selectFrom('accounts')
    .innerJoin('account_prices', (join) =>
      join.on((eb) =>
        eb.or([
          eb('account_prices.account_id', '=', eb.ref('accounts.id')),
          eb('account_prices.account_id', '=', eb.ref('accounts.parent_id')),
        ]),
      ),
    )
    .select(['account_prices.account_id', 'account_prices.units'])
    .where('accounts.id', '=', accountId)
    .where('account_prices.channel', '=', channel),
);

/** The account's own price, else its parent's (a sub-account inherits), else the default. */
export async function priceUnits(db: Executor, accountId: number, channel: Channel): Promise<number> {
  const { rows } = await pricesOf(db, accountId, channel);
  const row = rows.find((r) => r.account_id === accountId) ?? rows[0];
  return row ? row.units : toUnits(DEFAULT_PRICES[channel]);
}

export async function setPrice(db: Executor, accountId: number, channel: Channel, units: number): Promise<void> {
  await db
    .insertInto('account_prices')
    .values({ account_id: accountId, channel, units })
    .onConflict((oc) => oc.columns(['account_id', 'channel']).doUpdateSet({ units }))
    .execute();
}
