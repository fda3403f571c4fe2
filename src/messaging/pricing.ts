import type { Executor } from '../db/engine.js';
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

export async function priceUnits(db: Executor, accountId: number, channel: Channel): Promise<number> {
  const row = await db.selectFrom('account_prices').select('units').where('account_id', '=', accountId).where('channel', '=', channel).executeTakeFirst();
  return row ? row.units : toUnits(DEFAULT_PRICES[channel]);
}

export async function setPrice(db: Executor, accountId: number, channel: Channel, units: number): Promise<void> {
  await db
    .insertInto('account_prices')
    .values({ account_id: accountId, channel, units })
    .onConflict((oc) => oc.columns(['account_id', 'channel']).doUpdateSet({ units }))
    .execute();
}
