import type { Executor } from '../db/engine.js';
import { compiledOnce } from '../db/prepared.js';
import { toUnits } from '../accounts/credits.js';
import type { Channel } from './types.js';

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

const channelPricesOf = compiledOnce((db, accountId: number, channel: Channel) =>
  db
    .selectFrom('accounts')
    .leftJoin('account_prices', (join) =>
      join
        .on((eb) =>
          eb.or([
            eb('account_prices.account_id', '=', eb.ref('accounts.id')),
            eb('account_prices.account_id', '=', eb.ref('accounts.parent_id')),
          ]),
        )
        .on('account_prices.channel', '=', channel),
    )
    .leftJoin('accounts as parent', 'parent.id', 'accounts.parent_id')
    .select([
      'accounts.parent_id',
      'account_prices.account_id',
      'account_prices.units',
      'accounts.credit_value',
      'parent.credit_value as parent_credit_value',
    ])
    .where('accounts.id', '=', accountId),
);

export interface AccountPricing {
  parentId: number | null;
  /** The account's channel price, else its parent's, in credit units; null when neither set one. */
  channelUnits: number | null;
  /** Money per credit in ten-thousandths: the account's, else its parent's; null when neither set one (CREDIT_VALUE). */
  creditValue: number | null;
}

/** What prices the account's messages on a channel besides the prefix lists: its parent and its channel price. */
export async function accountPricing(db: Executor, accountId: number, channel: Channel): Promise<AccountPricing> {
  const { rows } = await channelPricesOf(db, accountId, channel);
  const own = rows.find((r) => r.account_id !== null && Number(r.account_id) === accountId);
  const inherited = rows.find((r) => r.account_id !== null);
  const parentId = rows[0]?.parent_id ?? null;
  const units = (own ?? inherited)?.units;
  const creditValue = rows[0]?.credit_value ?? rows[0]?.parent_credit_value ?? null;
  return {
    parentId: parentId === null ? null : Number(parentId),
    channelUnits: units == null ? null : Number(units),
    creditValue: creditValue === null ? null : Number(creditValue),
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
