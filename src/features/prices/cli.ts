import type { Command } from 'commander';
import { toCredits, toUnits } from '../../accounts/credits.js';
import { shownEmail } from '../../accounts/subaccount-email.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { PARENT_OPTION, requireAccount, table } from '../../cli/helpers.js';
import { emailsByIds } from '../../accounts/index.js';
import type { BaseContext } from '../../context.js';
import { DEPLOYMENT, dropPrefixPrice, listPrefixPrices, savePrefixPrice, type PrefixPrice } from './service.js';
import { CHANNELS, type Channel } from '../../channels.js';

function channelOf(value: string): Channel {
  if (!CHANNELS.includes(value as Channel)) throw new CliError(`--channel is one of ${CHANNELS.join(', ')}`);
  return value as Channel;
}

function prefixOf(value: string): string {
  if (!/^\d{1,15}$/.test(String(value))) throw new CliError('--prefix is 1 to 15 digits, with the country code');
  return String(value);
}

/** Credits as the operator gives them: 0 to 1,000,000 with at most 4 decimals (one unit). */
function unitsOf(value: string): number {
  const credits = Number(value);
  if (!/^\d+(\.\d{1,4})?$/.test(String(value).trim()) || credits > 1_000_000)
    throw new CliError('--credits is a number of credits from 0 to 1000000 with at most 4 decimals');
  return toUnits(credits);
}

async function scopeOf(ctx: BaseContext, o: { email?: string; parent?: string }) {
  if (o.email === undefined) return { accountId: DEPLOYMENT, account: null };
  const account = await requireAccount(ctx, o.email, o.parent);
  return { accountId: account.id, account: shownEmail(account.email) };
}

async function shownList(ctx: BaseContext, prices: PrefixPrice[]) {
  const ids = [...new Set(prices.map((p) => p.accountId).filter((id) => id !== DEPLOYMENT))];
  const emails = await emailsByIds(ctx.db.kysely, ids);
  return prices.map((p) => ({
    channel: p.channel,
    prefix: p.prefix,
    credits: toCredits(p.units),
    account: p.accountId === DEPLOYMENT ? null : (emails.get(p.accountId) ?? null),
  }));
}

/** `prices set|list|remove`: credits per message by destination prefix, the deployment's or an account's. */
export function priceCommands(program: Command, run: CliRunner): void {
  const prices = program.command('prices').description('credits per message by destination prefix');
  prices
    .command('set')
    .requiredOption('--channel <channel>', CHANNELS.join('|'))
    .requiredOption('--prefix <digits>', 'destination prefix with the country code')
    .requiredOption('--credits <n>', 'credits per message')
    .option('--email <email>', "this account's price (default: the deployment's)")
    .option(...PARENT_OPTION)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const row = { channel: channelOf(o.channel), prefix: prefixOf(o.prefix), units: unitsOf(o.credits) };
        const { accountId, account } = await scopeOf(ctx, o);
        await savePrefixPrice(ctx.db, { ...row, accountId });
        return { channel: row.channel, prefix: row.prefix, credits: toCredits(row.units), account };
      }),
    );
  prices
    .command('list')
    .option('--email <email>', "only this account's own prices")
    .option(...PARENT_OPTION)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const accountId = o.email === undefined ? undefined : (await scopeOf(ctx, o)).accountId;
          return { prices: await shownList(ctx, await listPrefixPrices(ctx.db.kysely, accountId)) };
        },
        (r) => table(r.prices, ['channel', 'prefix', 'credits', 'account']),
      ),
    );
  prices
    .command('remove')
    .requiredOption('--channel <channel>')
    .requiredOption('--prefix <digits>')
    .option('--email <email>')
    .option(...PARENT_OPTION)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const key = { channel: channelOf(o.channel), prefix: prefixOf(o.prefix), ...(await scopeOf(ctx, o)) };
        return { removed: await dropPrefixPrice(ctx.db, key) };
      }),
    );
}
