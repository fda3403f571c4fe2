import { Command, type Option } from 'commander';
import { toUnits } from '../../accounts/credits.js';
import { findAccountById, type Account } from '../../accounts/index.js';
import type { BaseContext } from '../../context.js';
import type { Channel } from '../../messaging/types.js';
import { changeSettings } from './admin.js';
import { optoutChanges } from './cli-optout-options.js';
import { abuseChanges } from './cli-abuse-options.js';
import { dailySpendOption, priceOptions, settingChanges, settingOptions } from './cli-options.js';
import { CliError } from '../../cli/runner.js';
import { trafficChanges } from './cli-traffic-options.js';
import { accountSettings, type AccountSettingsView } from './settings.js';

// `accounts set` in one call, for the command and for PATCH /operator/v1/accounts/{id}: both read the options that
// settingOptions declares, so a setting added there is taken by both. A refused value is a CliError.

/** Options of `accounts set` that name the account or the output, not a setting. */
const NOT_SETTINGS = new Set(['email', 'parent', 'json']);

/** The settings `accounts set` takes: its options but the account's and --json (commander's Option objects). */
export function accountSettingOptions(): Option[] {
  return settingOptions(new Command('set')).options.filter((o) => !NOT_SETTINGS.has(o.attributeName()));
}

/** Changes the account's settings, prices, opt-out and traffic settings from `accounts set`'s options; the settings view after. */
export async function applyAccountSettings(
  ctx: Pick<BaseContext, 'db' | 'config'>,
  account: Account,
  o: Record<string, unknown>,
): Promise<AccountSettingsView> {
  const optout = optoutChanges(o, account);
  const traffic = trafficChanges(o, account);
  const changes = settingChanges(o);
  const units = priceOptions(o).map(([channel, credits]) => [channel, toUnits(credits)] as [Channel, number]);
  const dailySpend = dailySpendOption(o);
  if (dailySpend !== undefined && account.parent_id !== null)
    throw new CliError('--daily-spend is set on the top-level account: it covers its sub-accounts', {
      code: 'daily_spend_top_level',
    });
  await changeSettings(ctx.db, account.id, changes, units, {
    optout,
    dailySpend,
    rules: abuseChanges(o),
    traffic,
  });
  const after = (await findAccountById(ctx.db.kysely, account.id)) ?? account;
  return accountSettings(ctx.db.kysely, after, ctx.config.CREDIT_VALUE);
}
