import type { Command } from 'commander';
import { thresholdUnits, toCredits, toUnits } from '../accounts/credits.js';
import { adjustCredits, archiveAccount, rotateKey, unarchiveAccount, type Account } from '../accounts/index.js';
import { shownEmail } from '../accounts/subaccount-email.js';
import { AccountCreateError, createAccount } from '../accounts/create.js';
import { normaliseAllowList } from '../auth/allow-list.js';
import type { BaseContext } from '../context.js';
import type { Executor } from '../db/engine.js';
import { CliError, type CliRunner } from './runner.js';
import { PARENT_OPTION, requireAccount } from './helpers.js';
import { accountPricing, DEFAULT_PRICES, priceUnits, setPrice } from '../messaging/pricing.js';
import { formatMoney, parseMoney } from '../lib/money.js';
import type { Channel } from '../messaging/types.js';
import { optoutSettings } from '../messaging/optouts.js';
import { OPTOUT_OPTIONS, optoutChanges } from './optout-options.js';

export function settingsOf(a: Account) {
  return {
    email: shownEmail(a.email),
    status: a.status,
    credits: toCredits(a.credits),
    webhook_method: a.webhook_method,
    allow_ips: a.allow_ips ? (JSON.parse(a.allow_ips) as string[]) : null,
    panel_allow_ip: a.panel_allow_ip === 1,
    rate_limit_per_sec: a.rate_limit_per_sec,
    max_subaccounts: a.max_subaccounts,
    parent_id: a.parent_id,
    low_balance: a.low_balance_units === null ? null : toCredits(Number(a.low_balance_units)),
  };
}

const number = (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new CliError(`not a number: ${v}`);
  return n;
};

const PRICE_OPTIONS: Array<[Channel, string]> = [
  ['sms', 'priceSms'],
  ['rcs', 'priceRcs'],
  ['chatapp', 'priceChatapp'],
  ['voice', 'priceVoice'],
];

/** The --price-<channel> options given, validated: a price is zero or more credits, at most 4 decimals (one unit). */
function priceOptions(o: Record<string, unknown>): Array<[Channel, number]> {
  const prices: Array<[Channel, number]> = [];
  for (const [channel, key] of PRICE_OPTIONS) {
    const value = o[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || value < 0 || value > 1_000_000 || toCredits(toUnits(value)) !== value) {
      throw new CliError(`--price-${channel} is a number of credits from 0 to 1000000 with at most 4 decimals`);
    }
    prices.push([channel, value]);
  }
  return prices;
}

/** --credit-value: money per credit (ten-thousandths), or null for `default` (CREDIT_VALUE, or the parent's). */
function creditValueOption(value: string): number | null {
  if (value === 'default') return null;
  const amount = parseMoney(value);
  if (amount === null) throw new CliError('--credit-value is an amount of money with at most 4 decimals, or default');
  return amount;
}

/** The account's price per channel in credits, as sends are charged: its own, else its parent's, else the default. */
async function pricesOf(ctx: BaseContext, accountId: number): Promise<Record<Channel, number>> {
  const prices = { ...DEFAULT_PRICES };
  for (const channel of Object.keys(prices) as Channel[])
    prices[channel] = toCredits(await priceUnits(ctx.db.kysely, accountId, channel));
  return prices;
}

/**
 * The new account's password: --password-stdin (first line of standard
 * input), else --password (kept for scripts; the
 * process list shows it to every local user), else MENSAJERO_PASSWORD.
 */
async function passwordFrom(o: { passwordStdin?: boolean; password?: string }): Promise<string> {
  let password: string | undefined;
  if (o.passwordStdin) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
  } else password = o.password || process.env.MENSAJERO_PASSWORD;
  if (!password)
    throw new CliError(
      'no password: pipe it with --password-stdin or set MENSAJERO_PASSWORD (--password works but shows it in the process list)',
    );
  return password;
}

/** --low-balance N (credits, at most 4 decimals) or off; a new threshold is armed: the next debit below it is reported. */
function lowBalanceSetting(value: string): { low_balance_units: number | null; low_balance_sent: number } {
  const units = value.trim() === '' ? undefined : thresholdUnits(value);
  if (units === undefined)
    throw new CliError('--low-balance is a number of credits above 0 with at most 4 decimals, or off');
  return { low_balance_units: units, low_balance_sent: 0 };
}

export function accountCommands(program: Command, run: CliRunner): void {
  const accounts = program.command('accounts').description('create and administer accounts');

  accounts
    .command('create')
    .requiredOption('--email <email>')
    .option('--password-stdin', 'read the password from the first line of standard input')
    .option(
      '--password <password>',
      'UNSAFE: visible in the process list; prefer --password-stdin or MENSAJERO_PASSWORD',
    )
    .option('--credits <n>', 'starting balance', number, 0)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          if (o.credits < 0) throw new CliError('--credits cannot be negative');
          const password = await passwordFrom(o);
          const { account, apikey } = await createAccount(ctx.db, ctx.secrets.keyEncryption, {
            email: o.email,
            password,
            credits: o.credits,
          }).catch((err) => {
            throw err instanceof AccountCreateError ? new CliError(err.message) : err;
          });
          return { id: account.id, email: account.email, apikey, credits: toCredits(account.credits) };
        },
        (r) => `created account ${r.id} (${r.email}) with ${r.credits} credits\napikey: ${r.apikey}`,
      ),
    );

  accounts
    .command('credits')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .requiredOption('--add <n>', 'credits to add; negative withdraws', number)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          const units = toUnits(o.add);
          await ctx.db.kysely.transaction().execute(async (trx) => {
            if (!(await adjustCredits(trx, account.id, units))) throw new CliError('the balance cannot go below zero');
            // Loaded here: the webhook modules are for this command only, not every `accounts` one.
            if (units < 0) await (await import('../webhooks/index.js')).recordLowBalance(trx, account.id);
          });
          const after = await requireAccount(ctx, o.email, o.parent);
          return { email: shownEmail(after.email), credits: toCredits(after.credits) };
        },
        (r) => `${r.email}: ${r.credits} credits`,
      ),
    );

  accounts
    .command('set')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--webhook-method <method>', 'GET or POST')
    .option('--allow-ip <cidrs>', 'comma-separated CIDRs, or none')
    .option('--panel-allow-ip <on|off>', 'apply the allow-list to the panel too (a parent: its sub-accounts too)')
    .option('--rate-limit <n>', 'message-sending requests per second (default: RATE_LIMIT_PER_SECOND)', number)
    .option('--max-subaccounts <n>', 'sub-accounts this account may have, or default (SUBACCOUNTS_PER_ACCOUNT)')
    .option('--price-sms <n>', `credits per SMS (default ${DEFAULT_PRICES.sms})`, number)
    .option('--price-rcs <n>', `credits per RCS message (default ${DEFAULT_PRICES.rcs})`, number)
    .option('--price-chatapp <n>', `credits per chat-app message (default ${DEFAULT_PRICES.chatapp})`, number)
    .option('--price-voice <n>', `credits per voice call (default ${DEFAULT_PRICES.voice})`, number)
    .option(...OPTOUT_OPTIONS[0])
    .option(...OPTOUT_OPTIONS[1])
    .option('--low-balance <n>', 'credits below which the account gets one low_balance event per crossing, or off')
    .option('--credit-value <amount>', 'money per credit, up to 4 decimals, or default (CREDIT_VALUE)')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const account = await requireAccount(ctx, o.email, o.parent);
        const optout = optoutChanges(o, account);
        const changes: Partial<
          Pick<
            Account,
            | 'webhook_method'
            | 'allow_ips'
            | 'panel_allow_ip'
            | 'rate_limit_per_sec'
            | 'max_subaccounts'
            | 'low_balance_units'
            | 'low_balance_sent'
            | 'credit_value'
          >
        > = {};
        if (o.lowBalance !== undefined) Object.assign(changes, lowBalanceSetting(o.lowBalance));
        if (o.creditValue !== undefined) changes.credit_value = creditValueOption(o.creditValue);
        if (o.webhookMethod !== undefined) {
          const m = String(o.webhookMethod).toUpperCase();
          if (m !== 'GET' && m !== 'POST') throw new CliError('--webhook-method is GET or POST');
          changes.webhook_method = m;
        }
        if (o.allowIp !== undefined) {
          if (o.allowIp === 'none' || o.allowIp === '') changes.allow_ips = null;
          else {
            try {
              changes.allow_ips = JSON.stringify(
                normaliseAllowList(
                  String(o.allowIp)
                    .split(',')
                    .filter((s) => s.trim() !== ''),
                ),
              );
            } catch (err) {
              throw new CliError((err as Error).message);
            }
          }
        }
        if (o.panelAllowIp !== undefined) {
          if (o.panelAllowIp !== 'on' && o.panelAllowIp !== 'off') throw new CliError('--panel-allow-ip is on or off');
          changes.panel_allow_ip = o.panelAllowIp === 'on' ? 1 : 0;
        }
        if (o.rateLimit !== undefined) {
          if (!Number.isInteger(o.rateLimit) || o.rateLimit < 1)
            throw new CliError('--rate-limit is a positive integer');
          changes.rate_limit_per_sec = o.rateLimit;
        }
        if (o.maxSubaccounts !== undefined) {
          const n = o.maxSubaccounts === 'default' ? null : Number(o.maxSubaccounts);
          if (n !== null && (!Number.isInteger(n) || n < 0))
            throw new CliError('--max-subaccounts is a whole number (0 forbids sub-accounts) or default');
          changes.max_subaccounts = n;
        }
        const prices = priceOptions(o);
        // The opt-out feature (its request schemas) is loaded only when a change needs it.
        const setOptoutSettings = optout
          ? (await import('../features/optouts/service.js')).setOptoutSettings
          : undefined;
        await ctx.db.kysely.transaction().execute(async (trx) => {
          if (Object.keys(changes).length > 0)
            await trx.updateTable('accounts').set(changes).where('id', '=', account.id).execute();
          for (const [channel, credits] of prices) await setPrice(trx, account.id, channel, toUnits(credits));
          if (optout && setOptoutSettings) await setOptoutSettings(trx, account.id, optout);
        });
        const { exemptOtp, confirmation } = await optoutSettings(ctx.db.kysely, account.parent_id ?? account.id);
        return {
          ...settingsOf(await requireAccount(ctx, o.email, o.parent)),
          prices: await pricesOf(ctx, account.id),
          credit_value: formatMoney(
            (await accountPricing(ctx.db.kysely, account.id, 'sms')).creditValue ?? ctx.config.CREDIT_VALUE,
          ),
          optouts: { exempt_otp: exemptOtp, confirmation },
        };
      }),
    );

  accounts
    .command('archive')
    .description('suspend the account and its sub-accounts: keys, tokens, panel sessions and pending sends stop')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          const { subaccounts } = await ctx.db.kysely.transaction().execute((trx) => archiveAccount(trx, account.id));
          return { email: shownEmail(account.email), status: 'archived', subaccounts_archived: subaccounts };
        },
        (r) =>
          `${r.email} archived, with ${r.subaccounts_archived} sub-accounts (unarchive each with accounts unarchive)`,
      ),
    );

  accounts
    .command('unarchive')
    .description('revive this one account with a new API key; its sub-accounts stay archived')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          if (account.status === 'active') throw new CliError(`${shownEmail(account.email)} is not archived`);
          const revive = (trx: Executor) => unarchiveAccount(trx, ctx.secrets.keyEncryption, account.id);
          const apikey = await ctx.db.kysely.transaction().execute(revive);
          if (!apikey) throw new CliError(`${shownEmail(account.email)} stays archived: unarchive its parent first`);
          return { email: shownEmail(account.email), status: 'active', apikey };
        },
        (r) =>
          `${r.email} is active again\nnew apikey: ${r.apikey}\n(its sub-accounts stay archived: unarchive each one)`,
      ),
    );

  accounts
    .command('rotate-key')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          const apikey = await ctx.db.kysely
            .transaction()
            .execute((trx) => rotateKey(trx, ctx.secrets.keyEncryption, account.id));
          return { email: shownEmail(account.email), apikey };
        },
        (r) => `new apikey for ${r.email}: ${r.apikey}\n(the old key no longer works)`,
      ),
    );
}
